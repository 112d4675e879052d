/**
 * Fake processes for the FakeRuntime: a process table (FakeHost) with pids and process groups,
 * and an interpreter that runs a parsed script (script.ts) as one fake process.
 *
 * Invariants:
 * - A process ends exactly once: by its script ending or `exit` (a code) or by a signal it does
 *   not trap (no code, the signal's name); `ended` resolves then and it leaves the table.
 * - Signals go to whole process groups, as a real kernel's kill(-pgid) does. SIGKILL cannot be
 *   trapped; `trap '' TERM` ignores SIGTERM; `trap 'cmds' TERM` runs cmds when it arrives.
 * - `cmd &` and `sh -c` start child processes in their parent's group, sharing its output.
 * - Nothing touches the host machine: no real processes, no files (output goes to `write`).
 *   Only `sleep` waits in real time (a timer, cancelled when the process ends).
 */
import { evalArith, parseScript, ScriptError, type Command, type Script, type Word } from './script.js';

export type Signal = 'SIGTERM' | 'SIGKILL';
export interface ProcessEnd {
  code: number | null;
  signal: Signal | null;
}
export type Output = (tag: 'o' | 'e', text: string) => void;

/** The commands fake processes know; anything else is "not found". */
export const FAKE_COMMANDS: ReadonlySet<string> = new Set([
  'sh',
  'env',
  'seq',
  'echo',
  'printf',
  'sleep',
  'true',
  'false',
  'pwd',
  ':',
]);

class Exit {
  constructor(readonly code: number) {}
}
class Killed {}

export class FakeHost {
  private nextPid = 40_000;
  private readonly table = new Map<number, FakeProcess>();

  /** Start a process (a new group unless `pgid` is given). `tag` is the starter's own note (a runtime's task key). */
  spawn(options: {
    env: Record<string, string>;
    cwd: string;
    write: Output;
    pgid?: number;
    tag?: unknown;
  }): FakeProcess {
    const pid = this.nextPid++;
    const proc = new FakeProcess(this, pid, options.pgid ?? pid, options.env, options.cwd, options.write, options.tag);
    this.table.set(pid, proc);
    void proc.ended.then(() => this.table.delete(pid));
    return proc;
  }

  get(pid: number): FakeProcess | undefined {
    return this.table.get(pid);
  }

  isAlive(pid: number): boolean {
    return this.table.has(pid);
  }

  /** Live processes that lead their own group (what a runtime launched). */
  leaders(): FakeProcess[] {
    return [...this.table.values()].filter((p) => p.pid === p.pgid);
  }

  group(pgid: number): FakeProcess[] {
    return [...this.table.values()].filter((p) => p.pgid === pgid);
  }

  /** kill(-pgid, signal); returns false when the group is empty. */
  signalGroup(pgid: number, signal: Signal): boolean {
    const members = this.group(pgid);
    for (const p of members) p.signal(signal);
    return members.length > 0;
  }
}

export class FakeProcess {
  readonly ended: Promise<ProcessEnd>;
  private resolveEnded!: (end: ProcessEnd) => void;
  private done = false;
  private readonly abort = new AbortController();
  private readonly traps = new Map<string, string>();
  private readonly children = new Set<FakeProcess>();
  private vars: Record<string, string>;
  private status = 0;
  private lastBackground: number | null = null;

  constructor(
    private readonly host: FakeHost,
    readonly pid: number,
    readonly pgid: number,
    readonly env: Record<string, string>,
    private readonly cwd: string,
    private readonly write: Output,
    readonly tag?: unknown,
  ) {
    this.vars = { ...env };
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  get alive(): boolean {
    return !this.done;
  }

  /** Run argv (e.g. ['sh', '-c', script] or ['seq', '1', '3']) as this process's program. */
  start(argv: readonly string[]): void {
    void (async () => {
      try {
        this.end({ code: await this.program(argv), signal: null });
      } catch (error) {
        if (error instanceof Exit) this.end({ code: error.code, signal: null });
        else if (!(error instanceof Killed)) {
          this.write('e', `sh: ${error instanceof Error ? error.message : String(error)}\n`);
          this.end({ code: 2, signal: null });
        }
      }
    })();
  }

  signal(signal: Signal): void {
    if (this.done) return;
    const name = signal.slice(3);
    const trap = signal === 'SIGKILL' ? undefined : this.traps.get(name);
    if (trap === undefined) {
      this.end({ code: null, signal });
      return;
    }
    if (trap === '') return;
    void this.run(parseScript(trap), { o: 'o', e: 'e' }).catch((error: unknown) => {
      if (error instanceof Exit) this.end({ code: error.code, signal: null });
    });
  }

  /** End now (a test's "the program exited with this code"). */
  exit(code: number): void {
    this.end({ code, signal: null });
  }

  private end(end: ProcessEnd): void {
    if (this.done) return;
    this.done = true;
    this.abort.abort();
    this.resolveEnded(end);
  }

  private check(): void {
    if (this.done) throw new Killed();
  }

  /** This process's program: `sh -c SCRIPT` runs the script in this process, anything else is one command. */
  private program(argv: readonly string[]): Promise<number> {
    if (argv[0] === 'sh' && argv[1] === '-c' && argv[2] !== undefined)
      return this.run(parseScript(argv[2]), { o: 'o', e: 'e' });
    return this.command(argv, { o: 'o', e: 'e' });
  }

  private async run(script: Script, out: { o: 'o' | 'e' | null; e: 'o' | 'e' | null }): Promise<number> {
    for (const { command, background } of script) {
      this.check();
      if (background) {
        this.background(command);
        this.status = 0;
      } else {
        this.status = await this.execute(command, out);
      }
    }
    return this.status;
  }

  private async execute(command: Command, out: { o: 'o' | 'e' | null; e: 'o' | 'e' | null }): Promise<number> {
    if (command.kind === 'while') {
      let status = 0;
      while ((await this.run(command.cond, out)) === 0) status = await this.run(command.body, out);
      return status;
    }
    const argv = command.words.map((w) => this.expand(w));
    const streams = { ...out };
    for (const r of command.redirects) streams[r.fd === 1 ? 'o' : 'e'] = r.to === null ? null : out[r.to];
    return this.command(argv, streams);
  }

  private background(command: Command): void {
    const child = this.host.spawn({ env: { ...this.vars }, cwd: this.cwd, write: this.write, pgid: this.pgid });
    this.children.add(child);
    this.lastBackground = child.pid;
    void child.ended.then(() => this.children.delete(child));
    void (async () => {
      try {
        const code =
          command.kind === 'simple' && command.redirects.length === 0
            ? await child.program(command.words.map((w) => this.expand(w)))
            : await child.execute(command, { o: 'o', e: 'e' });
        child.end({ code, signal: null });
      } catch (error) {
        if (error instanceof Exit) child.end({ code: error.code, signal: null });
        else if (!(error instanceof Killed)) child.end({ code: 2, signal: null });
      }
    })();
  }

  private expand(word: Word): string {
    return word.parts
      .map((p) =>
        p.kind === 'text'
          ? p.text
          : p.kind === 'var'
            ? this.lookup(p.name)
            : String(evalArith(p.expr, (n) => this.lookup(n))),
      )
      .join('');
  }

  private lookup(name: string): string {
    if (name === '$') return String(this.pid);
    if (name === '!') return this.lastBackground === null ? '' : String(this.lastBackground);
    if (name === '?') return String(this.status);
    return this.vars[name] ?? '';
  }

  private print(tag: 'o' | 'e' | null, text: string): void {
    if (tag !== null && text !== '') this.write(tag, text);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const signal = this.abort.signal;
      if (signal.aborted) return reject(new Killed());
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Killed());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async command(argv: readonly string[], out: { o: 'o' | 'e' | null; e: 'o' | 'e' | null }): Promise<number> {
    const [name, ...args] = argv;
    if (name === undefined) return this.status;
    switch (name) {
      case ':':
      case 'true':
        return 0;
      case 'false':
        return 1;
      case 'echo': {
        const newline = args[0] !== '-n';
        this.print(out.o, (newline ? args : args.slice(1)).join(' ') + (newline ? '\n' : ''));
        return 0;
      }
      case 'printf':
        this.print(out.o, printf(args[0] ?? '', args.slice(1)));
        return 0;
      case 'pwd':
        this.print(out.o, `${this.cwd}\n`);
        return 0;
      case 'env':
        this.print(
          out.o,
          Object.entries(this.env)
            .map(([k, v]) => `${k}=${v}\n`)
            .join(''),
        );
        return 0;
      case 'seq': {
        const [first, last] = args.length >= 2 ? [Number(args[0]), Number(args[1])] : [1, Number(args[0])];
        const lines: string[] = [];
        for (let n = first; n <= last; n++) lines.push(`${n}\n`);
        this.print(out.o, lines.join(''));
        return 0;
      }
      case 'sleep':
        await this.sleep(Number(args[0] ?? 0) * 1000);
        return 0;
      case 'exit':
        throw new Exit(args[0] === undefined ? this.status : Number(args[0]) & 255);
      case 'trap': {
        const [action, ...signals] = args;
        for (const s of signals) this.traps.set(s.replace(/^SIG/, ''), action ?? '');
        return 0;
      }
      case 'wait': {
        const abort = new Promise<never>((_, reject) =>
          this.abort.signal.addEventListener('abort', () => reject(new Killed()), { once: true }),
        );
        await Promise.race([Promise.all([...this.children].map((c) => c.ended)), abort]);
        return 0;
      }
      case 'sh': {
        if (args[0] !== '-c' || args[1] === undefined) throw new ScriptError('only "sh -c SCRIPT" is supported');
        const child = this.host.spawn({ env: { ...this.vars }, cwd: this.cwd, write: this.write, pgid: this.pgid });
        child.start(['sh', '-c', args[1]]);
        const end = await Promise.race([
          child.ended,
          new Promise<never>((_, reject) =>
            this.abort.signal.addEventListener('abort', () => reject(new Killed()), { once: true }),
          ),
        ]);
        return end.code ?? 128 + (end.signal === 'SIGKILL' ? 9 : 15);
      }
      default:
        this.print(out.e, `sh: ${name}: not found\n`);
        return 127;
    }
  }
}

/** printf with %s/%d and the escapes \n \t \\ (enough for the scripts tests use). */
function printf(format: string, args: string[]): string {
  let i = 0;
  const text = format.replace(/%[sd%]/g, (m) => (m === '%%' ? '%' : (args[i++] ?? '')));
  return text.replace(/\\([nt\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : '\\'));
}

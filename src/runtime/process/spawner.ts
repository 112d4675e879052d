/**
 * ResidentSpawner: the controller's side of the resident spawner (spawner-main.ts), a small
 * child Node process started on the first launch that forks the attempts' wrappers, so the
 * controller never forks itself per task (a fork's cost grows with the forking process's memory).
 *
 * Guarantees:
 * - spawn() resolves with the pid once the process runs, or rejects with an Error carrying the
 *   errno `code` and a `stage` ('output': an output file could not be opened; 'spawn').
 * - `exit` of a spawned process resolves exactly once with its code/signal. When the spawner
 *   itself dies, the processes it had started are no longer its children: their exits are then
 *   found by polling the pid (the wrapper's status file gives the code, see runtime.ts), and the
 *   next spawn() starts a fresh spawner.
 * - The spawner keeps the controller's event loop alive only while some process it spawned runs;
 *   when the controller exits, the spawner exits (the tasks keep running, as with a direct spawn).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../../host/proc.js';

export interface SpawnRequest {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Files for stdout and stderr (opened O_APPEND|O_CREAT|O_NOFOLLOW, 0600, by the spawner). */
  out: string;
  err: string;
}

export interface SpawnedExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The spawner died before the exit arrived: code and signal are unknown (null). */
  lost?: boolean;
}

export interface Spawned {
  pid: number;
  exit: Promise<SpawnedExit>;
}

export class SpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly stage: 'output' | 'spawn',
  ) {
    super(message);
    this.name = 'SpawnError';
  }
}

interface Pending {
  resolve: (s: Spawned) => void;
  reject: (e: Error) => void;
  pid: number | null;
  exited: (e: SpawnedExit) => void;
  exit: Promise<SpawnedExit>;
}

type Reply =
  | { id: number; pid: number }
  | { id: number; error: { code?: string; message: string; stage: 'output' | 'spawn' } }
  | { id: number; exit: { code: number | null; signal: NodeJS.Signals | null } };

/** The spawner program beside this module: compiled (.js) in dist, the source (.ts) under the tests. */
function programPath(): string {
  const js = fileURLToPath(new URL('./spawner-main.js', import.meta.url));
  return existsSync(js) ? js : fileURLToPath(new URL('./spawner-main.ts', import.meta.url));
}

/** How often a process whose spawner died is checked for its end. */
const ORPHAN_POLL_MS = 100;

export class ResidentSpawner {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Processes spawned and not yet exited (they hold the event loop, as a direct child would). */
  private running = 0;
  /** close() was called while processes ran: disconnect after the last one's exit. */
  private closing = false;

  /** The spawner's pid, or null before the first spawn / after it died. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private start(): ChildProcess {
    // A small heap: it holds only the requests in flight.
    // Node options of the controller's environment (a profiler, a preload) are not the spawner's.
    const { NODE_OPTIONS: _options, ...env } = process.env;
    const child = fork(programPath(), [], {
      env,
      execArgv: ['--max-old-space-size=32', '--max-semi-space-size=1'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
    child.on('message', (m: Reply) => this.onReply(m));
    child.on('error', () => undefined);
    child.once('exit', () => this.onSpawnerGone(child));
    this.child = child;
    this.hold();
    return child;
  }

  spawn(req: SpawnRequest): Promise<Spawned> {
    this.closing = false;
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise<Spawned>((resolve, reject) => {
      let exited!: (e: SpawnedExit) => void;
      const exit = new Promise<SpawnedExit>((r) => (exited = r));
      this.pending.set(id, { resolve, reject, pid: null, exited, exit });
      this.running++;
      this.hold();
      child.send({ id, ...req }, (e) => {
        if (e) this.settle(id, { code: null, signal: null, lost: true }, e);
      });
    });
  }

  private onReply(m: Reply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if ('pid' in m) {
      p.pid = m.pid;
      p.resolve({ pid: m.pid, exit: p.exit });
    } else if ('error' in m) {
      this.settle(m.id, { code: null, signal: null }, new SpawnError(m.error.message, m.error.code, m.error.stage));
    } else {
      this.settle(m.id, { code: m.exit.code, signal: m.exit.signal });
    }
  }

  /** Ends one request: rejects it when it never started, else resolves its exit. */
  private settle(id: number, exit: SpawnedExit, error?: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.running--;
    if (p.pid === null) p.reject(error ?? new SpawnError('the spawner stopped', undefined, 'spawn'));
    else p.exited(exit);
    this.hold();
    if (this.closing && this.running === 0) this.close();
  }

  /** The spawner died: requests not yet started fail; started ones are watched by pid. */
  private onSpawnerGone(child: ChildProcess): void {
    if (this.child === child) this.child = null;
    for (const [id, p] of [...this.pending]) {
      if (p.pid === null) {
        this.settle(id, { code: null, signal: null }, new SpawnError('the spawner stopped', undefined, 'spawn'));
        continue;
      }
      const pid = p.pid;
      // Gone: no such process, or a zombie its new parent has not reaped yet.
      const timer = setInterval(() => {
        void isAlive(pid).then((alive) => {
          if (alive) return;
          clearInterval(timer);
          this.settle(id, { code: null, signal: null, lost: true });
        });
      }, ORPHAN_POLL_MS);
    }
  }

  /** Refs the spawner only while something it spawned runs. */
  private hold(): void {
    const child = this.child;
    if (!child) return;
    if (this.running > 0) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  /** Ends the spawner (the processes it started keep running). */
  close(): void {
    const child = this.child;
    if (!child) return;
    if (this.running > 0) {
      // Their exits still come through it; it is unrefd already and goes after the last one.
      this.closing = true;
      return;
    }
    this.closing = false;
    this.child = null;
    if (child.connected) child.disconnect();
  }
}

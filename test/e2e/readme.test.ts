/**
 * E2E: README.md's quick start runs as written. The commands are read from the README's
 * "Quick start" block when the test runs (so the test follows the README, and fails when the
 * README and the binary drift apart), run in order by bash in the checkout against a fresh
 * IRIS_HOME, and what the README says they print is checked: `iris logs demo` line for line as
 * the README shows it (times aside), the `submitted … (run N)` lines, the tree `iris jobs`
 * shows, the sections of `iris status`, and the four replicas' lines.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, cleanEnv } from './harness.js';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The fenced blocks of `text` after `heading`, in order: their language and lines. */
function blocksAfter(text: string, heading: string): { lang: string; lines: string[] }[] {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const blocks: { lang: string; lines: string[] }[] = [];
  let current: { lang: string; lines: string[] } | null = null;
  for (const line of text.slice(start).split('\n')) {
    if (line.startsWith('```')) {
      if (current) {
        blocks.push(current);
        current = null;
      } else current = { lang: line.slice(3).trim(), lines: [] };
    } else current?.lines.push(line);
  }
  return blocks;
}

/** The commands of a shell block: comments and blank lines left out, a here-document kept whole. */
function commandsOf(lines: readonly string[]): string[] {
  const commands: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(line);
    if (!heredoc) {
      commands.push(line);
      continue;
    }
    const body = [line];
    while (i + 1 < lines.length && lines[i] !== heredoc[1]) body.push(lines[++i]!);
    commands.push(body.join('\n'));
  }
  return commands;
}

interface Step {
  command: string;
  code: number;
  stdout: string;
  stderr: string;
}

const timeless = (line: string): string => line.replace(/^\d\d:\d\d:\d\d\.\d{3} /, '');

describe('the README quick start, as written', () => {
  const quickStart = blocksAfter(README, '## Quick start: a real job tree');
  const script = quickStart.find((b) => b.lang === 'sh');
  let root: string;
  let steps: Step[] = [];
  const step = (prefix: string): Step => {
    const found = steps.find((s) => s.command.startsWith(prefix));
    if (!found) throw new Error(`the quick start has no command starting with ${prefix}`);
    return found;
  };

  beforeAll(() => {
    assertBuilt();
    if (!script) throw new Error('the quick start has no sh block');
    root = mkdtempSync(path.join(tmpdir(), 'iris-readme-'));
    const commands = commandsOf(script.lines);
    // Each command as written, between markers on stdout and stderr and followed by its exit code.
    const program = commands
      .map((command, i) => `echo '@@@ ${i}'; echo '@@@ ${i}' >&2\n${command}\necho "@@@ exit $?"`)
      .join('\n');
    const run = spawnSync('bash', ['-c', program], {
      cwd: ROOT,
      env: cleanEnv({ HOME: root, IRIS_HOME: path.join(root, 'home') }),
      encoding: 'utf8',
      timeout: 120_000,
    });
    const split = (text: string) => text.split(/^@@@ \d+\n/m).slice(1);
    const outs = split(run.stdout);
    const errs = split(run.stderr);
    steps = commands.map((command, i) => {
      const out = outs[i] ?? '';
      const exit = /@@@ exit (\d+)\n$/.exec(out);
      return {
        command,
        code: exit ? Number(exit[1]) : -1,
        stdout: out.replace(/@@@ exit \d+\n$/, ''),
        stderr: errs[i] ?? '',
      };
    });
  }, 150_000);

  afterAll(() => {
    // The quick start stops its cluster itself; make sure, should a step have failed before that.
    spawnSync(path.join(ROOT, 'bin', 'iris'), ['cluster', 'stop'], {
      env: cleanEnv({ IRIS_HOME: path.join(root, 'home') }),
    });
    rmSync(root, { recursive: true, force: true });
  });

  it('every command exits 0', () => {
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const s of steps) expect(s.code, `${s.command}\nstdout: ${s.stdout}\nstderr: ${s.stderr}`).toBe(0);
  });

  it('`iris logs demo` prints the lines the README shows, in its order', () => {
    const shown = quickStart.find((b) => b.lang === '' && b.lines.some((l) => l.includes('I am /demo/task-0')));
    expect(shown, 'the README shows the output of iris logs demo').toBeDefined();
    const expected = shown!.lines.filter(Boolean).map(timeless);
    const logs = step('./bin/iris logs demo');
    expect(logs.stdout.trimEnd().split('\n').map(timeless)).toEqual(expected);
    // "and on stderr … what the nested `iris run`s said: `submitted /demo/eval (run 2)` and … `iris: /demo/eval
    // SUCCEEDED`": each quoted line of that sentence, from the task that wrote it.
    const said = /and on stderr[^:]*: `(submitted [^`]+)`[^`]*`(iris: [^`]+ SUCCEEDED)`/.exec(
      README.replace(/\s+/g, ' '),
    );
    expect(said, 'the README says what the nested runs printed').not.toBeNull();
    const stderr = logs.stderr.trimEnd().split('\n').map(timeless);
    expect(stderr).toContain(`task-0[0] ${said![1]}`);
    expect(stderr).toContain(`task-0[0] ${said![2]}`);
  });

  it('`iris run` and `iris submit` say `submitted /NAME (run N)` on stderr, submit the name on stdout', () => {
    expect(step('./bin/iris run --name demo').stderr).toMatch(/^submitted \/demo \(run 1\)$/m);
    const sweep = step('./bin/iris submit --name sweep');
    expect(sweep.stdout).toBe('/sweep\n');
    expect(README).toContain('`submitted /sweep (run 4)` on stderr');
    expect(sweep.stderr).toMatch(/^submitted \/sweep \(run 4\)$/m);
  });

  it('`iris jobs` shows the tree its comment names; `iris status` the sections its comment names', () => {
    const jobs = step('./bin/iris jobs');
    const named = /# the tree: (.*)$/.exec(jobs.command)?.[1]?.split(', ') ?? [];
    expect(named).toEqual(['/demo', '/demo/eval', '/demo/eval/score']);
    const rows = jobs.stdout.split('\n');
    expect(rows.find((r) => r.startsWith('/demo '))).toContain('SUCCEEDED');
    expect(rows.find((r) => /^└─ eval /.test(r))).toContain('SUCCEEDED');
    expect(rows.find((r) => /^\s+└─ score /.test(r))).toContain('SUCCEEDED');

    const status = step('./bin/iris status demo/eval');
    for (const section of ['Tasks:', 'Attempts:', 'Children:']) expect(status.stdout).toContain(section);
    expect(status.stdout).toMatch(/\/demo\/eval\/task-0\s+SUCCEEDED\s+0\s+local\s+0\s/);
    expect(status.stdout).toContain('/demo/eval/score');
  });

  it('the four replicas each print their index and the count', () => {
    const lines = step('./bin/iris logs sweep -f').stdout.trimEnd().split('\n').map(timeless).sort();
    expect(lines).toEqual([0, 1, 2, 3].map((i) => `task-${i}[0] task ${i} of 4`));
  });
});

/**
 * E2E: the built `iris watch` in a real terminal (tmux, 80×24) over a real cluster with 40 jobs
 * whose states keep changing: the view fits the terminal, so the pane's scrollback
 * (`#{history_size}`) does not grow while it redraws; the captured screen shows the title, the
 * summary, active jobs first (finished ones collapsed into a count), and the footer with `q`;
 * End scrolls to the collapsed count and the workers; a resize re-fits the view; `q` quits with
 * exit 0.
 *
 * tmux runs on a private server socket (`-L`), started without any user config. Without tmux the
 * file is skipped with a message, except under CI=true or IRIS_TEST_TMUX=1 (set by `npm test`
 * after scripts/tmux-setup.sh), where a missing tmux fails.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, withCluster } from './harness.js';

const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
const mustRun =
  (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0') ||
  process.env.IRIS_TEST_TMUX === '1';
if (!hasTmux && !mustRun)
  console.warn('skipping the tmux test of iris watch: tmux is not installed (bash scripts/tmux-setup.sh installs it)');

const WORKERS = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 8GiB}
`;
const SOCKET = `iris-watch-e2e-${process.pid}`;
const TARGET = 'watch';

function tmux(args: readonly string[], env?: Record<string, string>): string {
  const r = spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], {
    encoding: 'utf8',
    env: env ?? cleanEnv(),
    timeout: 10_000,
  });
  if (r.status !== 0)
    throw new Error(`tmux ${args.join(' ')} -> exit ${r.status}: ${r.stderr}${r.error ? String(r.error) : ''}`);
  return r.stdout;
}
const screen = (): string[] => tmux(['capture-pane', '-p', '-t', TARGET]).replace(/\n+$/, '').split('\n');
const history = (): number => Number(tmux(['display-message', '-p', '-t', TARGET, '#{history_size}']).trim());
const pad = (i: number) => String(i).padStart(2, '0');

/** Polls the pane (bounded) until `ok` holds; fails with the last screen. */
async function untilScreen(what: string, ok: (lines: string[]) => boolean, timeoutMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let lines = screen();
  while (!ok(lines)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${lines.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    lines = screen();
  }
  return lines;
}

if (!hasTmux && mustRun) {
  describe('iris watch in a terminal (tmux 80x24)', () => {
    it('has tmux', () => {
      throw new Error(
        'tmux is required here (CI=true or IRIS_TEST_TMUX=1) but not installed: run `bash scripts/tmux-setup.sh`',
      );
    });
  });
}

describe.skipIf(!hasTmux)('iris watch in a terminal (tmux 80x24)', () => {
  const c = withCluster(WORKERS, 60_000);
  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { stdio: 'ignore' });
  });

  it('fits 40 changing jobs into the screen without growing the scrollback, and quits on q', async () => {
    // 10 jobs that have finished before the view starts, then 30 gated ones on 4 CPUs: 4 run, 26 wait.
    for (let i = 0; i < 10; i++) await c.client.submit({ name: `done-${pad(i)}`, command: ['true'], cpu: 0.1 });
    for (let i = 0; i < 10; i++) await c.waitForEnd(`/done-${pad(i)}`);
    const gates = Array.from({ length: 30 }, (_, i) => c.gate(`g${i}`));
    for (let i = 0; i < 30; i++)
      await c.client.submit({ name: `live-${pad(i)}`, command: ['sh', '-c', gates[i]!.hold], cpu: 1 });

    // CI=true would make watch print one snapshot (docs/cli.md): the view is what is tested here.
    const env = cleanEnv({ ...c.env, TERM: 'xterm-256color', CI: undefined });
    tmux(
      [
        'new-session',
        '-d',
        '-x',
        '80',
        '-y',
        '24',
        '-s',
        TARGET,
        '-c',
        c.cwd,
        'sh',
        '-c',
        '"$@"; printf "iris exited %s" "$?"',
        'sh',
        process.execPath,
        BIN,
        'watch',
        ';',
        'set-option',
        '-w',
        '-t',
        TARGET,
        'remain-on-exit',
        'on',
      ],
      env,
    );
    const first = await untilScreen(
      'the first frame',
      (lines) => !lines[0]?.startsWith('connecting') && lines.some((line) => /^q or Ctrl-C/.test(line)),
    );
    const start = history();

    // Let states change under the view: each opened gate ends a job and starts a pending one.
    for (let i = 0; i < 8; i++) {
      gates[i]!.open();
      await c.waitForEnd(`/live-${pad(i)}`);
      expect(history()).toBe(start);
    }
    const lines = await untilScreen('the view to show 18 finished jobs', (shown) =>
      shown.some((line) => /^40 jobs \(.*18 succeeded.*\)/.test(line)),
    );
    expect(history()).toBe(start);
    // The pane started empty and the view never took more rows than it has: nothing scrolled off.
    expect(start).toBe(0);
    expect(first[0]).toMatch(/^iris watch · /);
    expect(first[1]).toMatch(/^40 jobs \(.*\) · 1 worker · \d+ tasks? running$/);
    expect(lines[1]).toMatch(/^40 jobs \(.*18 succeeded.*\)/);
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(lines.at(-1)).toMatch(/^q or Ctrl-C quit/);
    expect(lines[2]).toMatch(/^JOB\s+STATE/);
    // Active jobs first: the rows under the header are unfinished jobs, none of the finished ones.
    const rows = lines.slice(3, -1);
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(row).toMatch(/^\/live-\d\d\s+(RUNNING|PENDING)\b/);
    expect(rows[0]).toMatch(/^\/live-08\s+RUNNING/);

    // End scrolls to the bottom: the collapsed count of finished jobs and the worker are there.
    tmux(['send-keys', '-t', TARGET, 'End']);
    const bottom = await untilScreen('the end of the list', (shown) => shown.some((line) => line.startsWith('w0')));
    expect(bottom.some((line) => line.startsWith('18 finished jobs: 18 succeeded'))).toBe(true);
    expect(bottom.at(-1)).toMatch(/^q or Ctrl-C quit · .* · lines \d+-\d+ of \d+$/);
    expect(history()).toBe(start);

    // A smaller terminal: the view re-fits (title on top, footer on its last line but one), and
    // from then on redraws without growing the scrollback either.
    tmux(['resize-window', '-t', TARGET, '-x', '100', '-y', '14']);
    const small = await untilScreen(
      'the view to re-fit 100x14',
      (shown) =>
        shown.length <= 13 &&
        shown[0]?.startsWith('iris watch') === true &&
        /^q or Ctrl-C quit/.test(shown.at(-1) ?? ''),
    );
    expect(small[1]).toMatch(/^40 jobs/);
    const resized = history();
    for (let i = 8; i < 10; i++) {
      gates[i]!.open();
      await c.waitForEnd(`/live-${pad(i)}`);
    }
    await untilScreen('the view to show 20 finished jobs', (shown) => /20 succeeded/.test(shown[1] ?? ''));
    expect(history()).toBe(resized);

    tmux(['send-keys', '-t', TARGET, 'q']);
    const after = await untilScreen(
      'the view to quit',
      (shown) => shown.some((line) => line.includes('iris exited')),
      10_000,
    );
    expect(
      after.some((line) => /iris exited 0$/.test(line)),
      after.join('\n'),
    ).toBe(true);
    for (let i = 10; i < 30; i++) gates[i]!.open();
  }, 120_000);
});

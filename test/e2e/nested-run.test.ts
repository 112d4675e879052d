/**
 * E2E: `iris run` inside a task (docs/cli.md, "iris run"; README quick start). The quick-start
 * tree — /demo runs /demo/eval runs /demo/eval/score, default resources — shows each line once
 * in `iris logs demo`: a nested `iris run` prints one line when its child ends instead of copying
 * the child's lines into its own task's log. `--stream` copies them again; a failed child's line
 * carries its exit code and the nested run exits 1.
 *
 * The only worker has 1 CPU and every job asks the default 1 CPU: the tree completes because a
 * parent waiting in `iris run` gives its CPU back (docs/architecture.md, "Waiting").
 */
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/api/types.js';
import { type E2ECluster, describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 1, memory: 8GiB}
`;

/** `task text` for every line of `target`'s logs (its subtree), sorted. */
async function logLines(c: E2ECluster, target: string): Promise<string[]> {
  const lines: LogLine[] = await c.logs(target);
  // `submitted NAME (run 7)`: run ids depend on what ran before; the line must name one.
  return lines.map((l) => `${l.task} ${l.text.replace(/ \(run \d+\)$/, ' (run N)')}`).sort();
}

describe('iris run inside a task', () => {
  const c = withCluster(CONFIG);

  it('the quick-start tree: every line appears once in iris logs demo, parents show one line per child', async () => {
    const tree = c.script(
      'tree.sh',
      [
        'echo "I am $IRIS_TASK_ID (job $IRIS_JOB_ID)"',
        'case "$IRIS_JOB_ID" in',
        `  /demo)      iris run --name eval  -- sh '${c.cwd}/tree.sh' ;;`,
        `  /demo/eval) iris run --name score -- sh '${c.cwd}/tree.sh' ;;`,
        'esac',
      ].join('\n'),
    );
    const args = ['run', '--name', 'demo', '--', 'sh', tree];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    // Outside a task `iris run` still streams the whole tree, each line once.
    for (const job of ['/demo', '/demo/eval', '/demo/eval/score']) {
      const said = r.stdout.split('\n').filter((l) => l.endsWith(`I am ${job}/task-0 (job ${job})`));
      expect(said, r.stdout).toHaveLength(1);
    }

    expect(await logLines(c, '/demo')).toEqual([
      '/demo/eval/score/task-0 I am /demo/eval/score/task-0 (job /demo/eval/score)',
      '/demo/eval/task-0 I am /demo/eval/task-0 (job /demo/eval)',
      '/demo/eval/task-0 iris: /demo/eval/score SUCCEEDED',
      '/demo/eval/task-0 submitted /demo/eval/score (run N)',
      '/demo/task-0 I am /demo/task-0 (job /demo)',
      '/demo/task-0 iris: /demo/eval SUCCEEDED',
      '/demo/task-0 submitted /demo/eval (run N)',
    ]);
    // What a user types: `iris logs demo` prints the three lines once each.
    const shown = await c.iris(['logs', 'demo']);
    expect(shown.code, describeRun(['logs', 'demo'], shown)).toBe(0);
    expect(
      shown.stdout
        .trim()
        .split('\n')
        .map((l) => l.replace(/^\S+ /, ''))
        .sort(),
    ).toEqual([
      'eval/score/task-0[0] I am /demo/eval/score/task-0 (job /demo/eval/score)',
      'eval/task-0[0] I am /demo/eval/task-0 (job /demo/eval)',
      'task-0[0] I am /demo/task-0 (job /demo)',
    ]);
    expect(shown.stderr).toMatch(/ task-0\[0\] iris: \/demo\/eval SUCCEEDED\n/);
  });

  it('a failed child: the parent task logs its state and exit code, and the nested run exits 1', async () => {
    const parent = c.script('bad-parent.sh', `iris run --name bad -- sh -c 'echo trying; exit 3'\necho "rc=$?"`);
    const args = ['run', '--name', 'f', '--', 'sh', parent];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(await logLines(c, '/f/task-0')).toEqual([
      '/f/task-0 iris: /f/bad FAILED (exit 3)',
      '/f/task-0 rc=1',
      '/f/task-0 submitted /f/bad (run N)',
    ]);
    expect((await c.job('/f/bad')).state).toBe('FAILED');
  });

  it('--stream inside a task copies the child lines into the parent task log again', async () => {
    const parent = c.script('stream-parent.sh', `iris run --stream --name kid -- sh -c 'echo kid-line'`);
    const args = ['run', '--name', 's', '--', 'sh', parent];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const own = await logLines(c, '/s/task-0');
    expect(own.filter((l) => l.includes('kid-line'))).toEqual([
      expect.stringMatching(/^\/s\/task-0 \S+ task-0\[0\] kid-line$/),
    ]);
    expect(own.some((l) => l.includes('iris: /s/kid'))).toBe(false);
    const all = await logLines(c, '/s');
    expect(all.filter((l) => l.includes('kid-line'))).toHaveLength(2);
  });
});

/**
 * E2E: a deadlock is named and ended (docs/architecture.md, "Deadlocks"). A parent holds the only
 * GPU and waits (`iris run` inside its task) on a child that needs that GPU: with
 * `deadlock-grace: 2s` the child ends UNSCHEDULABLE with the deadlock reason, the parent's
 * `iris run` returns non-zero, and the parent carries on.
 *
 * Needs the wait route (`iris run` inside a task registering its wait with the controller).
 */
import { describe, expect, it } from 'vitest';
import { describeRun, withCluster } from './harness.js';

const GRACE_MS = 2000;
/** Start of the child, its wait, passes and the CLI's own start: generous on a loaded machine. */
const MARGIN_MS = 10_000;

const CONFIG = `
stop-grace: 1s
deadlock-grace: 2s
workers:
  - {name: g0, cpu: 4, memory: 4GiB, gpu: {variant: H100, count: 1}}
`;

const REASON = 'deadlock: needs 1 GPU H100; /train/task-0 holds it while waiting on /train/eval';

describe('deadlocks', () => {
  const c = withCluster(CONFIG);

  it('a GPU child of a GPU-holding waiting parent ends UNSCHEDULABLE with the reason; the parent sees it', async () => {
    const parent = c.script('deadlock-parent.sh', 'iris run --name eval --gpu H100x1 -- true\necho "eval exited $?"');
    const args = ['run', '--name', 'train', '--gpu', 'H100x1', '--', 'sh', parent];
    const r = await c.iris(args, { timeoutMs: 50_000 });
    expect(r.code, describeRun(args, r)).toBe(0);

    const child = await c.job('/train/eval');
    expect(child.state).toBe('UNSCHEDULABLE');
    expect(child.reason).toBe(REASON);
    expect(child.finishedAt! - child.submittedAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(child.finishedAt! - child.submittedAt).toBeLessThan(GRACE_MS + MARGIN_MS);

    const lines = (await c.logs('/train')).map((line) => line.text);
    expect(lines).toContain('eval exited 1');
    expect((await c.job('/train')).state).toBe('SUCCEEDED');

    const status = await c.iris(['status', 'train/eval']);
    expect(status.stdout).toContain(REASON);
  }, 60_000);
});

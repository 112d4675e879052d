/**
 * E2E: a re-run parent. A parent task submits a child and then fails; its retry submits a child
 * of the same name again. The child of the failed attempt is ended (and gone) first, so the new
 * attempt's submission is accepted and the parent succeeds.
 */
import { describe, expect, it } from 'vitest';
import { describeRun, isRunning, marker, pidsWithMarker, withCluster } from './harness.js';

describe('re-run tree parents', () => {
  const c = withCluster('stop-grace: 2s\nworkers:\n  - {name: w0, cpu: 4, memory: 2GiB}\n');

  it("a parent's retry ends the children of its failed attempt and may submit the same names again", async () => {
    const tag = marker('rerun-child');
    const parent = c.script(
      'parent.sh',
      [
        'set -e',
        'if [ "$IRIS_ATTEMPT" = 0 ]; then',
        `  iris submit --name child --cpu 0.5 -- sh -c 'echo "child of attempt 0"; sleep 1000' "${tag}"`,
        '  exit 3',
        'fi',
        `iris submit --name child --cpu 0.5 -- echo "second child"`,
        'iris wait child',
      ].join('\n'),
    );
    const args = ['run', '--name', 'parent', '--cpu', '0.5', '--max-retries', '1', '--', parent];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const job = await c.waitForEnd('/parent');
    expect(job.state).toBe('SUCCEEDED');
    expect(job.taskList[0]!.attempts.map((a) => [a.state, a.exitCode])).toEqual([
      ['FAILED', 3],
      ['SUCCEEDED', 0],
    ]);
    const child = await c.job('/parent/child');
    expect(child.state).toBe('SUCCEEDED');
    expect((await c.logs('/parent/child')).map((l) => l.text)).toContain('second child');
    // The first attempt's child process is gone.
    expect(pidsWithMarker(tag).filter(isRunning)).toEqual([]);
  });
});

/**
 * E2E: commands say a thing once and in the user's words (docs/cli.md): `iris wait` prints its
 * result once (stdout), `iris prune` reports the age it was given, `--json` instants are ISO 8601
 * (prune's `cutoff`), and `iris logs` names the target as typed (never the API's query parameter)
 * and says what `iris status` says of a task the job does not have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2ECluster, describeRun, waitUntil } from './harness.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('answers printed once, in the words typed', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create();
    await c.submit(['--name', 'lg'], ['echo', 'hi']);
    await c.submit(['--name', 'f'], ['false']);
    for (const name of ['/lg', '/f']) {
      const r = await c.iris(['wait', name]);
      expect(r.code === 0 || r.code === 1, describeRun(['wait', name], r)).toBe(true);
    }
  }, 60_000);
  afterAll(async () => {
    await c?.stop();
  });

  it('iris wait prints a failed job once, on stdout, and exits 1', async () => {
    const r = await c.iris(['wait', 'f']);
    expect(r.code, describeRun(['wait', 'f'], r)).toBe(1);
    expect(r.stdout).toBe('/f FAILED: task /f/task-0 failed (exit 1)\n');
    expect(r.stderr).toBe('');
  });

  it('iris prune reports the age as given, and --json gives the cutoff as an ISO 8601 time', async () => {
    // The age is typed in a unit formatDuration would not choose (1500ms, not 1.5s).
    const ended = (await c.job('/lg')).finishedAt ?? Date.now();
    await waitUntil(
      '/lg to have ended 1.6s ago',
      async () => Date.now() - ended,
      (age) => age > 1600,
    );
    const args = ['prune', '--dry-run', '--older-than', '1500ms'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^would prune \d+ runs? that ended more than 1500ms ago \(/);
    const json = await c.json<{ cutoff: unknown }>(args);
    expect(json.cutoff).toMatch(ISO);
    expect(Date.parse(json.cutoff as string)).toBeLessThanOrEqual(Date.now() - 1500);
  });

  it('iris logs NAME@x names what was typed and the forms it takes, not the query parameter', async () => {
    const r = await c.iris(['logs', 'lg@x']);
    expect(r.code, describeRun(['logs', 'lg@x'], r)).toBe(2);
    expect(r.stderr).not.toContain('query parameter');
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      'Error: invalid run reference "lg@x": expected NAME@RUN or NAME@RUN/task-N with RUN a positive integer',
      'Hint: give a job (train, train/eval), a task (train/task-0) or a run of either (train@3, train@3/task-0); ' +
        'list the runs of a name with `iris history NAME`',
    ]);
  });

  it('iris logs JOB/task-3 of a 1-task job says what iris status says (exit 3)', async () => {
    const logs = await c.iris(['logs', 'lg/task-3']);
    const status = await c.iris(['status', 'lg/task-3']);
    expect(logs.code, describeRun(['logs', 'lg/task-3'], logs)).toBe(3);
    expect(logs.stderr).toBe('Error: job /lg has no task-3\nHint: it has 1 task: task-0; see `iris status /lg`\n');
    expect(logs.stderr).toBe(status.stderr);
  });
});

/**
 * E2E with the real Docker engine: a task in a container (running as nobody, 65534) publishes
 * results both ways — by writing $IRIS_RESULT_FILE, whose directory (the attempt's own, and
 * nothing else of the log tree) is mounted read-write, and with `iris result set` over the task
 * door. Needs the engine and test images (scripts/docker-setup.sh); under CI never skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsResponse } from '../../src/api/types.js';
import { BUSYBOX, NODE_IMAGE as NODE, dockerTestEnv } from '../helpers/docker.js';
import { startDockerCluster, stopDockerCluster } from './docker-fixture.js';
import { type E2ECluster, describeRun } from './harness.js';

const READY = (await dockerTestEnv()).run;

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

describe.skipIf(!READY)('task results from containers', () => {
  let c: E2ECluster;
  let clusterId = '';
  beforeAll(async () => {
    ({ c, clusterId } = await startDockerCluster(CONFIG));
  });
  afterAll(() => stopDockerCluster(c, clusterId));

  it('a container running as 65534 writes $IRIS_RESULT_FILE and sees no other attempt files', async () => {
    const script = [
      'id -u',
      'ls "$(dirname "$(dirname "$IRIS_RESULT_FILE")")"',
      'echo \'{"checkpoint": "/ckpt/c"}\' > "$IRIS_RESULT_FILE" || exit 3',
    ].join('; ');
    const r = await c.iris(['run', '--name', 'cfile', '--image', BUSYBOX, '--cpu', '0.2', '--', 'sh', '-c', script]);
    expect(r.code, describeRun(['run'], r)).toBe(0);
    const lines = (await c.logs('/cfile')).map((l) => l.text);
    expect(lines).toContain('65534');
    expect(lines).not.toContain('attempt-0.log'); // only the attempt's result directory is mounted
    const answer = await c.json<ResultsResponse>(['results', 'cfile']);
    expect(answer.results.map((row) => [row.key, row.value])).toEqual([['checkpoint', '/ckpt/c']]);
  });

  it('iris result set works from inside a container', async () => {
    const r = await c.iris([
      'run',
      '--name',
      'cset',
      '--image',
      NODE,
      '--cpu',
      '0.2',
      '--',
      'iris',
      'result',
      'set',
      'model',
      '/m/1',
    ]);
    expect(r.code, describeRun(['run'], r) + (await c.logs('/cset')).map((l) => l.text).join('\n')).toBe(0);
    const answer = await c.json<ResultsResponse>(['results', 'cset']);
    expect(answer.results.map((row) => [row.key, row.value])).toEqual([['model', '/m/1']]);
  });
});

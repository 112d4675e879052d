/**
 * Every job default of the config file reaches the jobs that leave it out (`iris status --json`
 * shows it), and a job's own value wins: `max-preemptions`, `time-limit` (docs/configuration.md).
 * (`image` is the third job default; it needs `runtime: docker` and is covered by the admission
 * unit tests.)
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail } from '../../src/api/types.js';
import { withCluster } from './harness.js';

const CONFIG = 'max-preemptions: 3\ntime-limit: 2h\nworkers:\n  - {name: w0, cpu: 2, memory: 2GiB}\n';

describe('job defaults from .irisrc.yaml', () => {
  const c = withCluster(CONFIG);

  it('applies every job default to a job that gives none', async () => {
    const name = await c.submit(['--name', 'plain', '--cpu', '0.1'], ['true']);
    const job = await c.json<JobDetail>(['status', name]);
    expect(job.maxPreemptions).toBe(3);
    expect(job.timeoutMs).toBe(2 * 3_600_000);
  });

  it('keeps the values a job gives itself, 0 included', async () => {
    const name = await c.submit(
      ['--name', 'own', '--cpu', '0.1', '--max-preemptions', '7', '--time-limit', '10m'],
      ['true'],
    );
    const job = await c.json<JobDetail>(['status', name]);
    expect(job.maxPreemptions).toBe(7);
    expect(job.timeoutMs).toBe(600_000);
    const none = await c.submit(['--name', 'never-preempted', '--cpu', '0.1', '--max-preemptions', '0'], ['true']);
    expect((await c.json<JobDetail>(['status', none])).maxPreemptions).toBe(0);
  });
});

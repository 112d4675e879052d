/**
 * E2E: priority bands (issue 32 §1, docs/priorities.md) on the built binary, process runtime.
 * A task's child inherits its parent's band and may ask only a lower one (a higher one is refused
 * with exit 4, naming the parent); production is the owner's and the users `production-users`
 * grants; `iris run --priority`; `--json` of `jobs`, `status` and `history` carries `band`.
 * Queue order and `iris update` are in bands-order.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { JobDetail, JobSummary, RunInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `
stop-grace: 1s
workers:
  - {name: w0, cpu: 4, memory: 4GiB}
`;

describe('bands: inheritance, refusal, the band in --json and the metrics', () => {
  const c = withCluster(CONFIG);

  it("a task's child inherits its parent's band, is refused a higher one (exit 4), may ask a lower one", async () => {
    // Each child's submit prints "TAG exit=CODE output", one line, into the parent's log.
    const child = (tag: string, flags: string) =>
      `out=$(iris submit --name ${tag} --cpu 0.1 ${flags} -- true 2>&1); ` +
      `echo "${tag} exit=$? $out" | tr '\\n' ' '; echo`;
    const batch = c.script(
      'batch-parent.sh',
      [child('inherit', ''), child('up', '--priority interactive'), child('same', '--priority batch')].join('\n'),
    );
    const interactive = c.script(
      'interactive-parent.sh',
      [child('lower', '--priority batch'), child('prod', '--priority production')].join('\n'),
    );
    for (const [name, flags, script] of [
      ['bp', ['--priority', 'batch'], batch],
      ['ip', [], interactive],
    ] as const) {
      const args = ['run', '--name', name, '--cpu', '0.1', ...flags, '--', 'sh', script];
      const r = await c.iris(args, { timeoutMs: 60_000 });
      expect(r.code, describeRun(args, r)).toBe(0);
    }
    const log = async (job: string) => (await c.logs(job)).map((l) => l.text).join('\n');
    const bp = await log('/bp');
    expect(bp).toMatch(/^inherit exit=0 \/bp\/inherit/m);
    expect(bp).toMatch(/^same exit=0 \/bp\/same/m);
    expect(bp).toMatch(/^up exit=4 .*a child job may not be in a higher band than its parent \/bp \(batch\)/m);
    const ip = await log('/ip');
    expect(ip).toMatch(/^lower exit=0 \/ip\/lower/m);
    expect(ip).toMatch(/^prod exit=4 .*than its parent \/ip \(interactive\)/m);

    const jobs = await c.json<JobSummary[]>(['jobs', '--all']);
    const band = (name: string) => jobs.find((j) => j.name === name)?.band;
    expect(band('/bp')).toBe('batch');
    expect(band('/bp/inherit')).toBe('batch');
    expect(band('/bp/same')).toBe('batch');
    expect(band('/ip')).toBe('interactive');
    expect(band('/ip/lower')).toBe('batch');
    expect(jobs.map((j) => j.name)).not.toContain('/bp/up');
    expect(jobs.map((j) => j.name)).not.toContain('/ip/prod');
  });

  it("a production parent's child inherits production without a grant", async () => {
    const script = c.script('prod-parent.sh', 'iris submit --name kid --cpu 0.1 -- true');
    const args = ['run', '--name', 'pp', '--cpu', '0.1', '--user', 'carol', '--priority', 'production'];
    // carol has no grant: the owner may not give her production either.
    const refused = await c.iris([...args, '--', 'sh', script]);
    expect(refused.code, describeRun(args, refused)).toBe(4);
    const own = ['run', '--name', 'pp', '--cpu', '0.1', '--priority', 'production', '--', 'sh', script];
    const r = await c.iris(own, { timeoutMs: 60_000 });
    expect(r.code, describeRun(own, r)).toBe(0);
    await c.waitForEnd('/pp/kid');
    expect((await c.json<JobDetail>(['status', '/pp/kid'])).band).toBe('production');
  });

  it('a task may not raise its own job above its band with iris update (exit 4); lowering it is allowed', async () => {
    // Each `iris update` of the task's own job prints "TAG exit=CODE output", one line.
    const update = (tag: string, band: string) =>
      `out=$(iris update "\${IRIS_TASK_ID%/task-*}" --priority ${band} 2>&1); ` +
      `echo "${tag} exit=$? $out" | tr '\\n' ' '; echo`;
    const script = c.script('self-raise.sh', [update('raise', 'production'), update('lower', 'batch')].join('\n'));
    const args = ['run', '--name', 'selfup', '--cpu', '0.1', '--', 'sh', script];
    const r = await c.iris(args, { timeoutMs: 60_000 });
    expect(r.code, describeRun(args, r)).toBe(0);
    const log = (await c.logs('/selfup')).map((l) => l.text).join('\n');
    expect(log).toMatch(/^raise exit=4 .*higher band than its parent \/selfup \(interactive\)/m);
    expect(log).toMatch(/^lower exit=0 \/selfup: band interactive -> batch/m);
  });

  it('a bad band is a usage error (exit 2)', async () => {
    const args = ['submit', '--name', 'bad-band', '--priority', 'urgent', '--', 'true'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(2);
    expect(r.stderr).toMatch(/production, interactive, batch/);
  });

  it('--json of jobs, status and history carries band; the tables show a BAND column', async () => {
    const own = await c.submit(['--name', 'own-prod', '--cpu', '0.1', '--priority', 'production'], ['true']);
    const aliceBatch = await c.submit(['--name', 'alice-batch', '--user', 'alice', '--priority', 'batch'], ['true']);
    for (const name of [own, aliceBatch]) await c.waitForEnd(name);
    const status = await c.json<JobDetail>(['status', own]);
    expect(status.band).toBe('production');
    const text = await c.iris(['status', '/alice-batch']);
    expect(text.stdout).toMatch(/^\s*Band:?\s+batch$/m);
    const history = await c.json<RunInfo[]>(['history']);
    expect(history.find((r) => r.name === '/alice-batch')?.band).toBe('batch');
    expect(history.find((r) => r.name === '/own-prod')?.band).toBe('production');
    expect(history.every((r) => r.band !== undefined)).toBe(true);
    const jobs = await c.json<JobSummary[]>(['jobs', '--all']);
    expect(jobs.every((j) => j.band !== undefined)).toBe(true);
    for (const args of [['jobs', '--all'], ['history'], ['watch', '--once']]) {
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stdout).toMatch(/^JOB\b.*\bBAND\b|^RUN\b.*\bBAND\b/m);
      expect(r.stdout).toMatch(/alice-batch.*\bbatch\b/);
    }
  });

  it('iris metrics counts live tasks by band and state (iris_tasks_by_band)', async () => {
    const gate = c.gate('metrics');
    try {
      // The whole worker for a production job (nothing may preempt it); a batch job waits.
      const hold = await c.submit(
        ['--name', 'm-hold', '--cpu', '4', '--priority', 'production'],
        ['sh', '-c', gate.hold],
      );
      await c.waitForState(hold, 'RUNNING');
      const wait = await c.submit(['--name', 'm-wait', '--cpu', '1', '--priority', 'batch'], ['true']);
      const r = await c.iris(['metrics']);
      expect(r.code, describeRun(['metrics'], r)).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l.startsWith('iris_tasks_by_band{'));
      expect(lines).toEqual(
        expect.arrayContaining([
          'iris_tasks_by_band{band="production",state="RUNNING"} 1',
          'iris_tasks_by_band{band="batch",state="PENDING"} 1',
          'iris_tasks_by_band{band="interactive",state="PENDING"} 0',
          'iris_tasks_by_band{band="interactive",state="RUNNING"} 0',
        ]),
      );
      expect(lines).toHaveLength(9);
      const samples = await c.json<Array<{ name: string; labels: Record<string, string>; value: number }>>(['metrics']);
      expect(samples).toContainEqual({
        name: 'iris_tasks_by_band',
        labels: { band: 'batch', state: 'PENDING' },
        value: 1,
      });
      gate.open();
      for (const name of [hold, wait]) await c.waitForEnd(name);
      const after = (await c.iris(['metrics'])).stdout.split('\n').filter((l) => l.startsWith('iris_tasks_by_band{'));
      expect(
        after.every((l) => l.endsWith(' 0')),
        after.join('\n'),
      ).toBe(true);
    } finally {
      gate.open();
    }
  });
});

describe("bands: production is the owner's and production-users'", () => {
  const c = withCluster(`${CONFIG}production-users: [bob]\n`);

  it('production: the owner may, alice is refused with exit 4, bob (production-users) may', async () => {
    const owner = await c.submit(['--name', 'own-prod', '--cpu', '0.1', '--priority', 'production'], ['true']);
    expect(owner).toBe('/own-prod');
    const alice = ['submit', '--name', 'alice-prod', '--user', 'alice', '--priority', 'production', '--', 'true'];
    const refused = await c.iris(alice);
    expect(refused.code, describeRun(alice, refused)).toBe(4);
    expect(refused.stderr).toContain('priority production is not granted to user alice');
    expect(refused.stderr).toContain('production-users: [alice]');
    const aliceBatch = await c.submit(['--name', 'alice-batch', '--user', 'alice', '--priority', 'batch'], ['true']);
    const bob = await c.submit(['--name', 'bob-prod', '--user', 'bob', '--priority', 'production'], ['true']);
    for (const name of [owner, aliceBatch, bob]) await c.waitForEnd(name);
    const jobs = await c.json<JobSummary[]>(['jobs', '--all']);
    const band = (name: string) => jobs.find((j) => j.name === name)?.band;
    expect(band('/own-prod')).toBe('production');
    expect(band('/bob-prod')).toBe('production');
    expect(band('/alice-batch')).toBe('batch');
    expect(jobs.map((j) => j.name)).not.toContain('/alice-prod');
  });
});

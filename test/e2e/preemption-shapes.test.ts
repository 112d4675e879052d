/**
 * E2E: which tasks a preemption stops (issue 32 §3; docs/priorities.md, "Preemption") on the
 * built CLI, process runtime: shape-aware (a job that stopping everything it may stop would not
 * fit stops nothing; a victim on a worker the job cannot use, by constraint or device, is left
 * alone); minimal (the fewest victims); gangs whole (a gang victim stops whole, a gang preemptor
 * frees one whole group); trees (a child never preempts its own parent; a preempted parent's
 * children are cancelled; a waiting parent sees its preempted child requeued, not failed).
 */
import { describe, expect, it } from 'vitest';
import { describeRun, withCluster } from './harness.js';
import { attempts, hold, queueReason, running, status } from './preemption-fixture.js';

const PREEMPTION = `
stop-grace: 1s
preemption: {grace: 2s, exempt: 0s}
`;

const preemptedBy = (job: string) => ({ state: 'PREEMPTED', reason: `preempted by ${job} (interactive)` });

describe('shape-aware: enough room or nothing', () => {
  const c = withCluster(`${PREEMPTION}
workers:
  - {name: w0, cpu: 4, memory: 8GiB}
`);

  it('a job that needs more than its victims would free stops nothing; a smaller one stops them', async () => {
    const keep = await hold(c, 'keep', ['--cpu', '2']);
    const sweep = await hold(c, 'sweep', ['--cpu', '1', '--priority', 'batch']);
    await running(c, keep.job);
    await running(c, sweep.job);
    // 4 CPUs: 1 free, 1 held by batch work, 2 by interactive work. Stopping the batch task frees 2.
    const big = await hold(c, 'big', ['--cpu', '4']);
    expect(await queueReason(c, big.job)).not.toMatch(/preempt/);
    expect(await attempts(c, sweep.job)).toMatchObject([{ state: 'RUNNING' }]);
    const mid = await hold(c, 'mid', ['--cpu', '2']);
    await running(c, mid.job);
    expect(await attempts(c, sweep.job)).toMatchObject([preemptedBy('/mid')]);
    expect(await attempts(c, keep.job)).toMatchObject([{ state: 'RUNNING' }]);
    expect((await status(c, big.job)).state).toBe('PENDING');
    for (const j of [keep, sweep, big, mid]) j.open();
    for (const j of [keep, sweep, big, mid]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('shape-aware: only the workers the job can use', () => {
  const c = withCluster(`${PREEMPTION}
workers:
  - {name: za, cpu: 1, memory: 2GiB, attributes: {zone: a}}
  - {name: zb, cpu: 1, memory: 2GiB, attributes: {zone: b}}
  - {name: h100, cpu: 2, memory: 4GiB, gpu: {variant: H100, count: 1}}
  - {name: a100, cpu: 2, memory: 4GiB, gpu: {variant: A100, count: 1}}
`);

  it('a constraint: the batch task in the other zone, though started later, is not stopped', async () => {
    const onA = await hold(c, 'on-a', ['--cpu', '1', '-c', 'zone=a', '--priority', 'batch']);
    await running(c, onA.job);
    const onB = await hold(c, 'on-b', ['--cpu', '1', '-c', 'zone=b', '--priority', 'batch']);
    await running(c, onB.job);
    const pre = await hold(c, 'pre-a', ['--cpu', '1', '-c', 'zone=a']);
    const started = await running(c, pre.job);
    expect(started.workerId).toBe('za');
    expect(await attempts(c, onA.job)).toMatchObject([preemptedBy('/pre-a')]);
    expect(await attempts(c, onB.job)).toMatchObject([{ state: 'RUNNING' }]);
    for (const j of [onA, onB, pre]) j.open();
    for (const j of [onA, onB, pre]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);

  it('a device: an H100 job stops the batch task on the H100, not the later one on the A100', async () => {
    const onH = await hold(c, 'on-h100', ['--gpu', 'H100', '--cpu', '1', '--priority', 'batch']);
    await running(c, onH.job);
    const onA = await hold(c, 'on-a100', ['--gpu', 'A100', '--cpu', '1', '--priority', 'batch']);
    await running(c, onA.job);
    const pre = await hold(c, 'pre-h100', ['--gpu', 'H100', '--cpu', '1']);
    const started = await running(c, pre.job);
    expect(started.workerId).toBe('h100');
    expect(await attempts(c, onH.job)).toMatchObject([preemptedBy('/pre-h100')]);
    expect(await attempts(c, onA.job)).toMatchObject([{ state: 'RUNNING' }]);
    for (const j of [onH, onA, pre]) j.open();
    for (const j of [onH, onA, pre]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('minimal', () => {
  const c = withCluster(`${PREEMPTION}
workers:
  - {name: w0, cpu: 4, memory: 8GiB}
`);

  it('two small batch tasks and a big one: a 2-CPU job stops the big one alone, though it started first', async () => {
    const big = await hold(c, 'big', ['--cpu', '2', '--priority', 'batch']);
    await running(c, big.job);
    const small = await hold(c, 'small', ['--cpu', '1', '--replicas', '2', '--priority', 'batch']);
    await running(c, small.job, 0, 0);
    await running(c, small.job, 0, 1);
    const pre = await hold(c, 'pre', ['--cpu', '2']);
    await running(c, pre.job);
    expect(await attempts(c, big.job)).toMatchObject([preemptedBy('/pre')]);
    const smalls = await status(c, small.job);
    expect(smalls.taskList.map((t) => t.attempts.map((a) => a.state))).toEqual([['RUNNING'], ['RUNNING']]);
    for (const j of [big, small, pre]) j.open();
    for (const j of [big, small, pre]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

const RACKS = `${PREEMPTION}
workers:
  - {name: w0, cpu: 1, memory: 2GiB, attributes: {rack: r1}}
  - {name: w1, cpu: 1, memory: 2GiB, attributes: {rack: r1}}
  - {name: w2, cpu: 1, memory: 2GiB, attributes: {rack: r2}}
  - {name: w3, cpu: 1, memory: 2GiB, attributes: {rack: r2}}
`;
const RACK: Record<string, string> = { w0: 'r1', w1: 'r1', w2: 'r2', w3: 'r2' };

describe('gangs whole: a gang victim', () => {
  const c = withCluster(RACKS);

  it('a 1-CPU job stops a batch gang of two whole (both members), as it started', async () => {
    const fill = await hold(c, 'fill', ['--cpu', '1', '--replicas', '2', '-c', 'rack=r1']);
    await running(c, fill.job, 0, 0);
    await running(c, fill.job, 0, 1);
    const gang = await hold(c, 'gang', [
      '--cpu',
      '1',
      '--replicas',
      '2',
      '--coschedule',
      'rack',
      '--priority',
      'batch',
    ]);
    await running(c, gang.job, 0, 0);
    await running(c, gang.job, 0, 1);
    const pre = await hold(c, 'pre', ['--cpu', '1']);
    const started = await running(c, pre.job);
    // One member is the victim the preemption names; the other stops with it (its gang restarts).
    const members = (await status(c, gang.job)).taskList;
    const ends = members.map((t) => ({ state: t.attempts[0]!.state, reason: t.attempts[0]!.reason }));
    expect(ends).toEqual(
      expect.arrayContaining([
        { state: 'PREEMPTED', reason: 'preempted by /pre (interactive)' },
        { state: 'KILLED', reason: 'gang restarted' },
      ]),
    );
    expect(members.map((t) => t.state)).toEqual(['PENDING', 'PENDING']);
    expect(members.map((t) => t.attempts[0]!.workerId)).toContain(started.workerId);
    // Both got the notice before their SIGTERM.
    for (const t of members) await c.waitForLog(t.id, 'TERM: preempted by /pre (interactive)');
    expect((await status(c, fill.job)).taskList.map((t) => t.attempts.length)).toEqual([1, 1]);
    for (const j of [fill, gang, pre]) j.open();
    for (const j of [fill, gang, pre]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('gangs whole: a gang preemptor', () => {
  const c = withCluster(RACKS);

  it('an interactive gang of two stops the two batch tasks of one rack and runs there', async () => {
    const fill = await hold(c, 'fill', ['--cpu', '1', '--replicas', '4', '--priority', 'batch']);
    for (const i of [0, 1, 2, 3]) await running(c, fill.job, 0, i);
    const gang = await hold(c, 'gang', ['--cpu', '1', '--replicas', '2', '--coschedule', 'rack']);
    const g0 = await running(c, gang.job, 0, 0);
    const g1 = await running(c, gang.job, 0, 1);
    const tasks = (await status(c, fill.job)).taskList;
    const stopped = tasks.filter((t) => t.attempts[0]!.state === 'PREEMPTED');
    expect(stopped).toHaveLength(2);
    for (const t of stopped) expect(t.attempts[0]!.reason).toBe('preempted by /gang (interactive)');
    const freed = stopped.map((t) => t.attempts[0]!.workerId).sort();
    expect(RACK[freed[0]!]).toBe(RACK[freed[1]!]);
    expect([g0.workerId, g1.workerId].sort()).toEqual(freed);
    for (const j of [fill, gang]) j.open();
    for (const j of [fill, gang]) expect((await c.waitForEnd(j.job)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('trees: a child and its parent', () => {
  // alice's quota is 1 CPU: of her two running 1-CPU jobs the later-started one is borrowed (batch).
  const c = withCluster(`${PREEMPTION}
quotas:
  alice: {cpu: 1}
workers:
  - {name: w0, cpu: 2, memory: 8GiB}
`);

  it('a child never preempts its own (borrowed) parent; a preempted parent has its children cancelled', async () => {
    const first = await hold(c, 'first', ['--cpu', '1', '--user', 'alice']);
    await running(c, first.job);
    const gate = c.gate('parent');
    const script = c.script(
      'parent.sh',
      [`iris submit --name kid --cpu 1 -- true > /dev/null || exit 1`, 'echo submitted', gate.hold].join('\n'),
    );
    const parent = await c.submit(['--name', 'parent', '--cpu', '1', '--user', 'alice'], ['sh', script]);
    await c.waitForLog(parent, 'submitted');
    // Its child (interactive, like it) finds no room: its parent is batch now, but above it.
    expect(await queueReason(c, '/parent/kid')).not.toMatch(/preempt/);
    expect(await attempts(c, parent)).toMatchObject([{ state: 'RUNNING' }]);
    expect(await attempts(c, first.job)).toMatchObject([{ state: 'RUNNING' }]);

    // bob's interactive job may stop alice's borrowed task: the parent, whose child goes with it.
    const bob = await hold(c, 'bob', ['--cpu', '1', '--user', 'bob']);
    await running(c, bob.job);
    expect(await attempts(c, parent)).toMatchObject([preemptedBy('/bob')]);
    expect(await attempts(c, first.job)).toMatchObject([{ state: 'RUNNING' }]);
    const kid = await c.iris(['status', '/parent/kid', '--json']);
    expect(kid.code, describeRun(['status', '/parent/kid'], kid)).toBe(0);
    expect(JSON.parse(kid.stdout)).toMatchObject({ state: 'KILLED' });

    gate.open();
    for (const j of [first, bob]) j.open();
    for (const j of [first.job, bob.job, parent]) expect((await c.waitForEnd(j)).state).toBe('SUCCEEDED');
  }, 60_000);
});

describe('trees: a waiting parent', () => {
  const c = withCluster(`${PREEMPTION}
workers:
  - {name: w0, cpu: 1, memory: 4GiB}
`);

  it("a preempted child's waiting parent sees it requeued, not failed, and its wait succeeds", async () => {
    const kidGate = c.gate('kid');
    const script = c.script(
      'waiter.sh',
      [
        `iris submit --name kid -- sh -c "${kidGate.hold}" > /dev/null || exit 1`,
        'iris wait kid > /dev/null 2>&1',
        'echo "wait-exit $?"',
      ].join('\n'),
    );
    const parent = await c.submit(['--name', 'waiter', '--priority', 'batch'], ['sh', script]);
    await running(c, '/waiter/kid');
    const urgent = await c.submit(['--name', 'urgent'], ['true']);
    expect((await c.waitForEnd(urgent)).state).toBe('SUCCEEDED');
    expect((await attempts(c, '/waiter/kid'))[0]).toMatchObject(preemptedBy('/urgent'));
    await running(c, '/waiter/kid', 1);
    expect(await attempts(c, parent)).toMatchObject([{ state: 'RUNNING' }]);
    kidGate.open();
    expect((await c.waitForEnd(parent)).state).toBe('SUCCEEDED');
    await c.waitForLog(parent, 'wait-exit 0');
    const kid = await status(c, '/waiter/kid');
    expect(kid.state).toBe('SUCCEEDED');
    expect(kid.taskList[0]!.attempts.map((a) => a.state)).toEqual(['PREEMPTED', 'SUCCEEDED']);
  }, 60_000);
});

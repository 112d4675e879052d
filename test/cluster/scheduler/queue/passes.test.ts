import { describe, expect, it } from 'vitest';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { isoReason } from '../../../helpers/reason-text.js';
import { tpuWorker } from '../helpers.js';
import { hold, PLACEMENTS, snap, startedJobs, timed, where, worker } from './helpers.js';

const tpu = { type: 'tpu' as const, variant: 'v5litepod-16', chips: 4 };
// Two 4-host slices, listed s0 first. s0 hosts 0 and 1 are busy until 1500, s1 host 2 until 1800.
const slices = [0, 1, 2, 3]
  .map((k) => tpuWorker(`s0-${k}`, 's0', k))
  .concat([0, 1, 2, 3].map((k) => tpuWorker(`s1-${k}`, 's1', k)));
const busy = [
  hold('/a/task-0', 's0-0', 1, 1500, { devices: 4 }),
  hold('/a/task-1', 's0-1', 1, 1500, { devices: 4 }),
  hold('/b/task-0', 's1-2', 1, 1800, { devices: 4 }),
];
const gang = timed('/gang', 1000, {
  cpu: 1,
  memGiB: 1,
  device: tpu,
  coschedule: 'tpu-name',
  replicas: 4,
  rootSubmittedAt: 1,
});
const single = timed('/single', 2000, { cpu: 1, memGiB: 1, device: tpu, rootSubmittedAt: 2 });

describe.each(PLACEMENTS)('gangs under queue policies (%s placement)', (label, placement) => {
  it('a blocked gang is reserved on the group free earliest; a later host job keeps off it', () => {
    const plan = new QueueScheduler({}, placement).pass(snap([gang, single], slices, busy));
    expect(Object.fromEntries(plan.reservations!)).toEqual({ '/gang': 1500 });
    // /single goes to one of the identical free hosts of s1: first-fit takes the first, adaptive's
    // rotation (issue 36) the one at the task's slot among them.
    const host = label === 'adaptive' ? 3 : 0;
    const s1 = host < 2 ? `host ${host} (s1-${host}) is busy, host 2 (s1-2)` : `host 2 (s1-2) is busy, host 3 (s1-3)`;
    expect(isoReason(plan.reasons.get('/gang'))).toBe(
      'need hosts 0-3 of one tpu-name group (task i runs on host i): s0 host 0 (s0-0) is busy, host 1 (s0-1) is ' +
        `busy; s1 ${s1} is busy; reserved to start at 1970-01-01T00:00:01.500Z`,
    );
    // s0-2 and s0-3 are free now but reserved for the gang from 1500; /single runs past that.
    expect(where(plan)).toEqual({ '/single/task-0': `s1-${host}` });
  });

  it('a gang starts all-or-nothing, task k on tpu-worker-id k', () => {
    const plan = new QueueScheduler({}, placement).pass(snap([gang], slices, busy.slice(0, 2)));
    expect(plan.placements.map((p) => [p.task, p.workerId, p.deviceIndices])).toEqual([
      ['/gang/task-0', 's1-0', [0, 1, 2, 3]],
      ['/gang/task-1', 's1-1', [0, 1, 2, 3]],
      ['/gang/task-2', 's1-2', [0, 1, 2, 3]],
      ['/gang/task-3', 's1-3', [0, 1, 2, 3]],
    ]);
    const none = new QueueScheduler({ policy: 'conservative' }, placement).pass(snap([gang], slices, busy));
    expect(none.placements).toEqual([]);
  });

  it('under first-fit the single host job takes a free host of the slice the gang waits for', () => {
    const plan = new QueueScheduler({ policy: 'first-fit' }, placement).pass(snap([gang, single], slices, busy));
    // s0-2 and s0-3 are free; which one is placement's choice (first-fit: the first in order).
    expect(startedJobs(plan)).toEqual(['/single']);
    expect(['s0-2', 's0-3']).toContain(where(plan)['/single/task-0']);
    if (label === 'first-fit') expect(where(plan)).toEqual({ '/single/task-0': 's0-2' });
  });
});

describe.each(PLACEMENTS)('passes over time (%s placement)', (_label, placement) => {
  const w = [worker('w1', { cpu: 4 })];
  const head = timed('/head', 100, { cpu: 4, memGiB: 0, rootSubmittedAt: 1 });
  const late = (name: string, limit: number, at: number) =>
    timed(name, limit, { cpu: 1, memGiB: 0, rootSubmittedAt: at });

  it('resourcesChanged=false: a blocked job is not retried, new jobs go around its reservation', () => {
    const scheduler = new QueueScheduler({}, placement);
    const first = scheduler.pass(snap([head], w, [hold('/r/task-0', 'w1', 3, 1200)]));
    expect(first.reservations!.get('/head')).toBe(1200);
    // The running task is gone but the caller says only jobs arrived: /head is not retried.
    const short = late('/short', 150, 10);
    const long = late('/long', 250, 11);
    const second = scheduler.pass(snap([head, short, long], w, [], 1050), false);
    expect(startedJobs(second)).toEqual(['/short']);
    expect(second.reservations!.get('/head')).toBe(1200);
    // Its reason from the first pass stands (it names no relative time); the pass does not repeat it.
    expect(isoReason(first.reasons.get('/head'))).toMatch(/reserved to start at 1970-01-01T00:00:01.200Z$/);
    expect(second.reasons.has('/head')).toBe(false);
    expect(second.reasons.get('/long')).toMatch(/^starting now would delay the reservation of \/head at /);
    // Resources changed: /head is reconsidered and starts at once.
    const third = scheduler.pass(snap([head, long], w, [], 1060), true);
    expect(startedJobs(third)).toEqual(['/head']);
    // /long is now the first blocked job: it gets the reservation, after /head's 100.
    expect(Object.fromEntries(third.reservations!)).toEqual({ '/long': 1160 });
  });

  it('resourcesChanged=false under fcfs: nothing starts behind the blocked job', () => {
    const scheduler = new QueueScheduler({ policy: 'fcfs' }, placement);
    scheduler.pass(snap([head], w, [hold('/r/task-0', 'w1', 3, 1200)]));
    const plan = scheduler.pass(snap([head, late('/x', 10, 5)], w, [hold('/r/task-0', 'w1', 3, 1200)], 1010), false);
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/x')).toBe('waiting behind /head (queue policy fcfs starts jobs strictly in order)');
  });

  it('a reservation never moves later when resources change (compression)', () => {
    const scheduler = new QueueScheduler({ policy: 'conservative' }, placement);
    const two = [worker('w1', { cpu: 2 }), worker('w2', { cpu: 2 })];
    const a = timed('/a', 100, { cpu: 2, memGiB: 0, rootSubmittedAt: 1 });
    const b = timed('/b', 100, { cpu: 2, memGiB: 0, rootSubmittedAt: 2 });
    const c = timed('/c', 50, { cpu: 2, memGiB: 0, rootSubmittedAt: 3 });
    const held = [hold('/x/task-0', 'w1', 2, 1300), hold('/y/task-0', 'w2', 2, 1100)];
    const first = scheduler.pass(snap([a, b, c], two, held));
    expect(Object.fromEntries(first.reservations!)).toEqual({ '/a': 1100, '/b': 1200, '/c': 1300 });
    // /x ends early: everything is re-planned in order, each no later than before.
    const second = scheduler.pass(snap([a, b, c], two, [held[1]!], 1050), true);
    expect(where(second)).toEqual({ '/a/task-0': 'w1' });
    expect(Object.fromEntries(second.reservations!)).toEqual({ '/b': 1100, '/c': 1150 });
  });

  it(
    'a deeper job that arrived after a reservation was planned goes first when resources change (queue order ' +
      'wins)',
    () => {
      const scheduler = new QueueScheduler({}, placement);
      const one = [worker('w1', { cpu: 1 })];
      const fresh = timed('/new', 500, { cpu: 1, memGiB: 0, rootSubmittedAt: 5 });
      const kid = timed('/old/kid', 500, { cpu: 1, memGiB: 0, rootSubmittedAt: 1 });
      const first = scheduler.pass(snap([fresh], one, [hold('/blk/task-0', 'w1', 1, 1200)]));
      expect(Object.fromEntries(first.reservations!)).toEqual({ '/new': 1200 });
      // The kid of an older tree arrives: it waits (the one easy reservation is taken) ...
      const second = scheduler.pass(snap([fresh, kid], one, [hold('/blk/task-0', 'w1', 1, 1200)], 1010), false);
      expect(startedJobs(second)).toEqual([]);
      // ... and when /blk ends early it starts first; /new is reserved after it.
      const third = scheduler.pass(snap([fresh, kid], one, [], 1050), true);
      expect(startedJobs(third)).toEqual(['/old/kid']);
      expect(Object.fromEntries(third.reservations!)).toEqual({ '/new': 1550 });
    },
  );

  it('queueDepth bounds the jobs one pass plans; every job past them may still start now', () => {
    // Was: only the first queueDepth jobs were looked at, so /j3../j9 waited on an idle worker
    // (issue 31, work-conserving passes).
    const many = Array.from({ length: 10 }, (_, i) => late(`/j${i}`, 10, i + 1));
    const big = [worker('big', { cpu: 64 })];
    const plan = new QueueScheduler({ queueDepth: 3 }, placement).pass(snap(many, big, []));
    expect(startedJobs(plan)).toEqual(many.map((j) => j.name));
    // A pre-ordered queue gives the same.
    const s = snap(many, big, []);
    const lazy = new QueueScheduler({ queueDepth: 3 }, placement).pass({ ...s, pendingOrdered: true });
    expect(startedJobs(lazy)).toEqual(many.map((j) => j.name));
    expect(lazy.reasons.size).toBe(0);
  });

  it('an over-quota user is deferred and never holds a reservation', () => {
    const two = [worker('w1', { cpu: 4 })];
    const bobBig = timed('/bob-big', 100, { cpu: 4, memGiB: 0, user: 'bob', rootSubmittedAt: 1 });
    const aliceBig = timed('/alice-big', 100, { cpu: 4, memGiB: 0, user: 'alice', rootSubmittedAt: 2 });
    const s = snap([bobBig, aliceBig], two, [hold('/r/task-0', 'w1', 1, 1200)], 1000, {
      usage: new Map([['bob', { cpuMillis: 8000, memoryBytes: 0, accelerators: 0, pendingTasks: 1 }]]),
      quotas: new Map([
        [
          'bob',
          {
            maxRunningCpuMillis: 8000,
            maxRunningMemoryBytes: null,
            maxRunningAccelerators: null,
            maxPendingTasks: null,
            weight: 1,
            hard: false,
          },
        ],
      ]),
    });
    const plan = new QueueScheduler({}, placement).pass(s);
    expect(Object.fromEntries(plan.reservations!)).toEqual({ '/alice-big': 1200 });
    expect(plan.reasons.get('/bob-big')).toBe(
      'user bob is over the running-cpu quota (8 of 8 CPU); need 4 CPU, largest free worker has 3',
    );
  });

  it('an independent job starts the tasks that fit and reserves each of the rest at its earliest', () => {
    const wide = timed('/wide', 100, { cpu: 2, memGiB: 0, replicas: 3 });
    const plan = new QueueScheduler({}, placement).pass(snap([wide], w, [hold('/r/task-0', 'w1', 1, 1050)]));
    expect(Object.keys(where(plan))).toEqual(['/wide/task-0']);
    // task-1 when /r ends (1050), task-2 when task-0 ends (1100); the job reports the first.
    expect(plan.reservations!.get('/wide')).toBe(1050);
  });
});

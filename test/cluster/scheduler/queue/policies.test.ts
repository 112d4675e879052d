import { describe, expect, it } from 'vitest';
import { QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import { isoReason } from '../../../helpers/reason-text.js';
import { hold, PLACEMENTS, snap, startedJobs, timed, where, worker } from './helpers.js';
import { joined } from '../../../helpers/regex.js';

// Two 4-core workers; w1 is busy with 3 cores until 1100, w2 with 3 cores until 1300 (now 1000).
const workers = [worker('w1', { cpu: 4 }), worker('w2', { cpu: 4 })];
const running = [hold('/r1/task-0', 'w1', 3, 1100), hold('/r2/task-0', 'w2', 3, 1300)];
// Queue order: big (needs a whole worker), big2, small1 (ends before 1100), small2 (long).
const big = timed('/big', 1000, { cpu: 4, memGiB: 0, rootSubmittedAt: 1 });
const big2 = timed('/big2', 100, { cpu: 4, memGiB: 0, rootSubmittedAt: 2 });
const small1 = timed('/small1', 50, { cpu: 1, memGiB: 0, rootSubmittedAt: 3 });
const small2 = timed('/small2', 500, { cpu: 1, memGiB: 0, rootSubmittedAt: 4 });
const queue = [big, big2, small1, small2];

describe.each(PLACEMENTS)('queue policies on a small cluster (%s placement)', (label, placement) => {
  function passWith(policy: QueuePolicy, extra: { reservationDepth?: number } = {}) {
    const scheduler = new QueueScheduler({ policy, ...extra }, placement);
    return scheduler.pass(snap(queue, workers, running));
  }

  it('easy: reserves the first blocked job and backfills only around it', () => {
    const plan = passWith('easy');
    expect([...plan.reservations!]).toEqual([['/big', 1100]]);
    if (label === 'first-fit') {
      // small1 ends at 1050 < 1100, so it fits on w1 (first in order) before big's reserved start;
      // small2 would hold w1 past 1100, but w2 has no reservation (big2 is not reserved under easy).
      expect(where(plan)).toEqual({ '/small1/task-0': 'w1', '/small2/task-0': 'w2' });
      // Reasons describe the capacity left after the pass (small1 and small2 took the free cores).
      expect(isoReason(plan.reasons.get('/big'))).toBe(
        'need 4 CPU, largest free worker has 0; reserved to start at 1970-01-01T00:00:01.100Z',
      );
      expect(plan.reasons.get('/big2')).toBe('need 4 CPU, largest free worker has 0');
    } else {
      // Split by placement: adaptive scores w1 and w2 alike here and its jitter puts small1 on w2.
      // Then small2 finds w2 full and w1 reserved for big from 1100 (it would hold w1 until 1500):
      // the scored branch's reservation check keeps it waiting.
      expect(where(plan)).toEqual({ '/small1/task-0': 'w2' });
      expect(isoReason(plan.reasons.get('/small2'))).toBe(
        'starting now would delay the reservation of /big at 1970-01-01T00:00:01.100Z',
      );
      expect(isoReason(plan.reasons.get('/big'))).toBe(
        'need 4 CPU, largest free worker has 1; reserved to start at 1970-01-01T00:00:01.100Z',
      );
      expect(plan.reasons.get('/big2')).toBe('need 4 CPU, largest free worker has 1');
    }
  });

  it('conservative: reserves every blocked job; later jobs may delay none', () => {
    const plan = passWith('conservative');
    // big on w1 [1100, 2100); big2 on w2 [1300, 1400); small2 (500) overlaps both -> reserved at 1400.
    // small1 (ends by 1050) delays neither; which worker it takes is placement's choice (first-fit:
    // w1, the first in order; adaptive: by score).
    expect(startedJobs(plan)).toEqual(['/small1']);
    if (label === 'first-fit') expect(where(plan)).toEqual({ '/small1/task-0': 'w1' });
    expect(Object.fromEntries(plan.reservations!)).toEqual({ '/big': 1100, '/big2': 1300, '/small2': 1400 });
    expect(isoReason(plan.reasons.get('/small2'))).toMatch(
      joined(
        /^starting now would delay reservations of 2 earlier jobs \(firs/,
        /t: \/big at .*\); reserved to start at 1970-01-01T00:00:01.400Z$/,
      ),
    );
  });

  it('hybrid reserves reservationDepth blocked jobs', () => {
    expect(Object.fromEntries(passWith('hybrid', { reservationDepth: 1 }).reservations!)).toEqual({ '/big': 1100 });
    const two = passWith('hybrid', { reservationDepth: 2 });
    expect(Object.fromEntries(two.reservations!)).toEqual({ '/big': 1100, '/big2': 1300 });
    // small2 is past the depth: not reserved, and it may not start since it would delay big2.
    expect(startedJobs(two)).toEqual(['/small1']);
    expect(two.reasons.get('/small2')).toMatch(/^starting now would delay reservations of 2 earlier jobs/);
  });

  it('fcfs stops at the first job that cannot start', () => {
    const plan = passWith('fcfs');
    expect(plan.placements).toEqual([]);
    expect(plan.reservations!.size).toBe(0);
    expect(plan.reasons.get('/small1')).toBe('waiting behind /big (queue policy fcfs starts jobs strictly in order)');
  });

  it('first-fit is the plain scheduler: small jobs run, nothing is reserved', () => {
    const plan = passWith('first-fit');
    expect(startedJobs(plan)).toEqual(['/small1', '/small2']);
    // One on each worker; which on which is placement's choice (first-fit: in worker order).
    expect(new Set(Object.values(where(plan)))).toEqual(new Set(['w1', 'w2']));
    if (label === 'first-fit') expect(where(plan)).toEqual({ '/small1/task-0': 'w1', '/small2/task-0': 'w2' });
    expect(plan.reservations).toBeUndefined();
  });

  it('placements carry device indices the worker has free', () => {
    const gpu = worker('g1', { cpu: 16, device: { type: 'gpu', variant: 'A100', count: 4 } });
    const held = [hold('/r/task-0', 'g1', 1, 5000, { devices: 1 })];
    const j = timed('/train', 100, {
      cpu: 1,
      memGiB: 0,
      device: { type: 'gpu', variant: null, count: 2 },
      replicas: 2,
    });
    const plan = new QueueScheduler({}, placement).pass(snap([j], [gpu], held));
    // Device 0 is held: task-0 takes 1 and 2; task-1 needs two more and waits for task-0's end.
    expect(plan.placements.map((p) => [p.task, p.deviceIndices])).toEqual([['/train/task-0', [1, 2]]]);
    expect(plan.reservations!.get('/train')).toBe(1100);
    expect(isoReason(plan.reasons.get('/train'))).toBe(
      'need 2 GPUs, largest free gpu worker has 1; reserved to start at 1970-01-01T00:00:01.100Z',
    );
  });

  it('a job that waits on tasks with no time limit gets no reservation and says why', () => {
    const forever = [hold('/daemon/task-0', 'w1', 4, Infinity), hold('/daemon/task-1', 'w2', 4, Infinity)];
    const plan = new QueueScheduler({}, placement).pass(snap([small1], workers, forever));
    expect(plan.placements).toEqual([]);
    expect(plan.reservations!.size).toBe(0);
    expect(plan.reasons.get('/small1')).toBe(
      'need 1 CPU, largest free worker has 0; no start can be reserved: the capacity it needs is held by tasks with ' +
        'no time limit',
    );
  });

  it('a job without a time limit plans with the default', () => {
    const untimed = { ...small2, timeLimitMs: null };
    const scheduler = new QueueScheduler({ defaultTimeLimitMs: 50 }, placement);
    // With a 50 limit it ends by 1050, before big's reservation at 1100: it may use w1.
    const plan = scheduler.pass(snap([big, untimed], [workers[0]!], [running[0]!]));
    expect(where(plan)).toEqual({ '/small2/task-0': 'w1' });
  });
});

describe('queue options', () => {
  it('rejects bad options with a clear error', () => {
    expect(() => new QueueScheduler({ policy: 'lifo' as QueuePolicy })).toThrow(/unknown queue policy "lifo"/);
    expect(() => new QueueScheduler({ queueDepth: 0 })).toThrow(/queueDepth must be an integer from 1/);
    expect(() => new QueueScheduler({ defaultTimeLimitMs: -1 })).toThrow(/defaultTimeLimitMs/);
  });
});

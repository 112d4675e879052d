import { describe, expect, it } from 'vitest';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import {
  EMPTY_QUEUE_STATE,
  POLICY_RULES,
  QUEUE_POLICIES,
  QueueScheduler,
  queueOptions,
  queuePass,
  reservationLimit,
  type QueuePolicy,
} from '../../../../src/cluster/scheduler/queue/index.js';
import { hold, PLACEMENTS, snap, timed, worker } from './helpers.js';

// Two 4-core workers, each with 3 cores busy; five 4-core jobs that must all wait, then small ones.
const workers = [worker('w1', { cpu: 4 }), worker('w2', { cpu: 4 })];
const running = [hold('/r1/task-0', 'w1', 3, 1100), hold('/r2/task-0', 'w2', 3, 1300)];
const bigs = [1, 2, 3, 4, 5].map((i) => timed(`/big${i}`, 100, { cpu: 4, memGiB: 0, rootSubmittedAt: i }));
const small = timed('/small', 50, { cpu: 1, memGiB: 0, rootSubmittedAt: 10 });
const scenario = () => snap([...bigs, small], workers, running);

describe.each(PLACEMENTS)('queue policies are data (%s placement)', (_label, placement) => {
  it('every policy has one registry entry, and the reservation limit is read from it', () => {
    expect(Object.keys(POLICY_RULES).sort()).toEqual([...QUEUE_POLICIES].sort());
    for (const policy of QUEUE_POLICIES) {
      expect(POLICY_RULES[policy].name).toBe(policy);
      const o = queueOptions({ policy, queueDepth: 7, reservationDepth: 3 });
      expect(reservationLimit(o)).toBe(POLICY_RULES[policy].reservationDepth(o));
    }
    const o = (policy: QueuePolicy) => queueOptions({ policy, queueDepth: 7, reservationDepth: 3 });
    expect(QUEUE_POLICIES.map((p) => reservationLimit(o(p)))).toEqual([0, 0, 1, 7, 3]);
  });

  it('max-reservation-depth caps conservative (and hybrid): never more reservations than it allows', () => {
    const capped = (policy: QueuePolicy) =>
      queueOptions({ policy, queueDepth: 7, reservationDepth: 3, maxReservationDepth: 2 });
    expect(reservationLimit(capped('conservative'))).toBe(2);
    expect(reservationLimit(capped('hybrid'))).toBe(2);
    const plan = new QueueScheduler(capped('conservative'), placement).pass(scenario());
    expect([...plan.reservations!.keys()]).toEqual(['/big1', '/big2']);
    expect(plan.reasons.get('/big3')).not.toMatch(/reserved/);
  });

  it.each(QUEUE_POLICIES.map((p) => [p]))('%s behaves as its entry says', (policy) => {
    const rule = POLICY_RULES[policy];
    const options = { policy, queueDepth: 7, reservationDepth: 3 };
    const plan = new QueueScheduler(options, placement).pass(scenario());
    if (!rule.plansAhead) {
      // No planner: exactly the plain first-fit pass, nothing reserved.
      expect(plan).toEqual(schedule(scenario(), placement));
      return;
    }
    const reserved = plan.reservations?.size ?? 0;
    expect(reserved).toBe(Math.min(bigs.length, rule.reservationDepth(queueOptions(options))));
    if (rule.stopAtFirstBlocked) {
      // The pass ends at the first blocked job: the small job behind it waits, with that reason.
      expect(plan.placements).toEqual([]);
      expect(plan.reasons.get('/small')).toBe(
        `waiting behind /big1 (queue policy ${policy} starts jobs strictly in order)`,
      );
    } else {
      // The pass goes on past blocked jobs: small starts if it delays no reservation (it ends by 1050).
      expect(plan.placements.map((p) => p.job)).toEqual(['/small']);
    }
  });
});

describe.each(PLACEMENTS)('the pass is a function of (snapshot, state) (%s placement)', (_label, placement) => {
  it('the same snapshot and state give the same plan and next state; the state is not changed', () => {
    const options = queueOptions({ policy: 'conservative' });
    const first = queuePass(scenario(), EMPTY_QUEUE_STATE, true, options, placement);
    expect(first.next.passes).toBe(1);
    expect([...first.next.blocked.keys()].sort()).toEqual(bigs.map((j) => j.name));
    expect(EMPTY_QUEUE_STATE.blocked.size).toBe(0);

    const state = first.next;
    const blockedBefore = new Map(state.blocked);
    const arrived = () =>
      snap([...bigs, small, timed('/late', 10, { cpu: 1, memGiB: 0, rootSubmittedAt: 20 })], workers, running);
    const a = queuePass(arrived(), state, false, options, placement);
    const b = queuePass(arrived(), state, false, options, placement);
    expect(a.plan).toEqual(b.plan);
    expect(a.next).toEqual(b.next);
    expect(state.blocked).toEqual(blockedBefore);
    expect(state.passes).toBe(1);
  });

  it.each(['fcfs', 'easy', 'conservative', 'hybrid'] as const)(
    '%s without reason text (explain false): the same plan and state, empty texts',
    (policy) => {
      // A late arrival that cannot start now either, so the second pass explains something too.
      const arrived = () =>
        snap([...bigs, small, timed('/late', 10, { cpu: 4, memGiB: 0, rootSubmittedAt: 20 })], workers, running);
      const full = queueOptions({ policy });
      const quiet = queueOptions({ policy, explain: false });
      const a1 = queuePass(scenario(), EMPTY_QUEUE_STATE, true, full, placement);
      const b1 = queuePass(scenario(), EMPTY_QUEUE_STATE, true, quiet, placement);
      const a2 = queuePass(arrived(), a1.next, false, full, placement);
      const b2 = queuePass(arrived(), b1.next, false, quiet, placement);
      for (const [a, b] of [
        [a1, b1],
        [a2, b2],
      ] as const) {
        expect(b.plan.placements).toEqual(a.plan.placements);
        expect(b.plan.reservations).toEqual(a.plan.reservations);
        expect([...b.plan.reasons.keys()]).toEqual([...a.plan.reasons.keys()]);
        expect(a.plan.reasons.size).toBeGreaterThan(0);
        expect([...a.plan.reasons.values()].every((text) => text.length > 0)).toBe(true);
        expect([...b.plan.reasons.values()].every((text) => text === '')).toBe(true);
        const strip = (m: ReadonlyMap<string, { reservation: unknown; since: number; reservedPass: number }>) =>
          [...m].map(([name, x]) => [name, x.reservation, x.since, x.reservedPass]);
        expect(strip(b.next.blocked)).toEqual(strip(a.next.blocked));
        expect([...b.next.reserved.keys()]).toEqual([...a.next.reserved.keys()]);
      }
    },
  );

  it('first-fit without reason text (explain false): the same placements, an empty text for the same jobs', () => {
    // The small job starts, the five big ones wait; an ordered snapshot is read as given.
    for (const ordered of [false, true]) {
      const s = { ...scenario(), ...(ordered ? { pendingOrdered: true } : {}) };
      const full = new QueueScheduler({ policy: 'first-fit' }, placement).pass(s);
      const quiet = new QueueScheduler({ policy: 'first-fit', explain: false }, placement).pass(s);
      expect(quiet.placements).toEqual(full.placements);
      expect(full.placements.map((p) => p.job)).toEqual(['/small']);
      expect([...quiet.reasons.keys()].sort()).toEqual([...full.reasons.keys()].sort());
      expect(full.reasons.size).toBe(5);
      expect([...full.reasons.values()].every((text) => text.length > 0)).toBe(true);
      expect([...quiet.reasons.values()].every((text) => text === '')).toBe(true);
    }
  });

  it('QueueScheduler keeps the same state as the pure function over several passes (updating its own maps)', () => {
    const options = queueOptions({ policy: 'conservative' });
    const scheduler = new QueueScheduler(options, placement);
    const arrived = () =>
      snap([...bigs, small, timed('/late', 10, { cpu: 1, memGiB: 0, rootSubmittedAt: 20 })], workers, running);
    let state = EMPTY_QUEUE_STATE;
    for (const [snapshot, changed] of [
      [scenario(), true],
      [arrived(), false],
      [arrived(), true],
      [arrived(), false],
    ] as const) {
      const viaFunction = queuePass(snapshot, state, changed, options, placement);
      expect(scheduler.pass(snapshot, changed)).toEqual(viaFunction.plan);
      expect(scheduler.state).toEqual(viaFunction.next);
      state = viaFunction.next;
    }
    expect(EMPTY_QUEUE_STATE.blocked.size).toBe(0);
  });

  it('QueueScheduler is a holder of that state', () => {
    const scheduler = new QueueScheduler({ policy: 'easy' }, placement);
    const options = queueOptions({ policy: 'easy' });
    const viaFunction = queuePass(scenario(), EMPTY_QUEUE_STATE, true, options, placement);
    expect(scheduler.pass(scenario())).toEqual(viaFunction.plan);
    expect(scheduler.state).toEqual(viaFunction.next);
  });
});

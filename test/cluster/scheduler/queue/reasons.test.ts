import { describe, expect, it } from 'vitest';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import { reservedSuffix } from '../../../../src/cluster/scheduler/queue/reasons.js';
import { hold, PLACEMENTS, snap, timed, worker } from './helpers.js';

describe.each(PLACEMENTS)('pending reasons carry their instants as data (%s placement)', (_label, placement) => {
  it('a reserved start is the number in a placeholder, or `now`; the scheduler formats no time', () => {
    expect(reservedSuffix(1100, 1000)).toBe('reserved to start at <t:1100>');
    expect(reservedSuffix(900, 1000)).toBe('reserved to start at now');
  });

  it('a job that would delay a reservation names its start the same way', () => {
    const w = [worker('w1', { cpu: 4 })];
    const head = timed('/head', 100, { cpu: 4, memGiB: 0, rootSubmittedAt: 1 });
    const long = timed('/long', 250, { cpu: 1, memGiB: 0, rootSubmittedAt: 2 });
    const plan = new QueueScheduler({}, placement).pass(snap([head, long], w, [hold('/r/task-0', 'w1', 3, 1200)]));
    expect(plan.reasons.get('/head')).toBe('need 4 CPU, largest free worker has 1; reserved to start at <t:1200>');
    expect(plan.reasons.get('/long')).toBe('starting now would delay the reservation of /head at <t:1200>');
  });
});

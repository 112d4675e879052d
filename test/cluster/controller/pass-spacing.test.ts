import { describe, expect, it } from 'vitest';
import { passStartAt } from '../../../src/cluster/controller/pass-spacing.js';

// When the next scheduling pass may start (pass-loop.ts header). Issue 36: a pass costs in
// proportion to the jobs pending, so passes asked for by submissions are spaced by their cost
// too; before, they ran every 20 ms whatever they cost, and with 10,000 jobs pending the passes
// filled the controller (1,000 submissions: 87 CPU-seconds; now ~2.5).
describe('pass spacing', () => {
  const cases: Array<[string, { at: number; ms: number; arrivalAt: number }, boolean, number]> = [
    // [case, last pass, resources changed, next start]
    ['a quick pass: freed capacity at once', { at: 1000, ms: 0.5, arrivalAt: 1000 }, true, -Infinity],
    [
      'a quick pass: a submission 20 ms after the last arrival pass',
      { at: 1000, ms: 0.5, arrivalAt: 1000 },
      false,
      1020,
    ],
    ['a 2 ms pass: freed capacity 10 ms after it began', { at: 1000, ms: 2, arrivalAt: 900 }, true, 1010],
    [
      'a 2 ms pass: a submission still waits for the arrival interval',
      { at: 1000, ms: 2, arrivalAt: 1000 },
      false,
      1020,
    ],
    ['a 30 ms pass (a long queue): a submission waits 150 ms', { at: 1000, ms: 30, arrivalAt: 1000 }, false, 1150],
    ['a 30 ms pass after an older arrival pass: still 150 ms', { at: 1000, ms: 30, arrivalAt: 500 }, false, 1150],
    ['a 30 ms pass: freed capacity waits 150 ms', { at: 1000, ms: 30, arrivalAt: 500 }, true, 1150],
    ['a 500 ms pass: at most 1 s later', { at: 1000, ms: 500, arrivalAt: 1000 }, true, 2000],
    ['a 500 ms pass: a submission at most 1 s later', { at: 1000, ms: 500, arrivalAt: 1000 }, false, 2000],
  ];
  it.each(cases)('%s', (_, last, changed, expected) => {
    expect(passStartAt(last, changed)).toBe(expected);
  });
});

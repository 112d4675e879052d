import { describe, expect, it } from 'vitest';
import { IrisError } from '../../src/model/errors.js';
import { compareBy, orderScore, parseOrder, type ScoredJob } from '../../src/sim/scores.js';

const job = (index: number, submit: number, requestedTime: number, procs: number): ScoredJob & { index: number } => ({
  index,
  submit,
  requestedTime,
  procs,
});

describe('orderScore', () => {
  it('fcfs is the submit time and sjf the requested time', () => {
    const j = job(0, 120, 3600, 8);
    expect(orderScore('fcfs', j)).toBe(120);
    expect(orderScore('sjf', j)).toBe(3600);
  });

  it('f1 is log10(r)*n + 870*log10(s)', () => {
    expect(orderScore('f1', job(0, 1000, 100, 4))).toBeCloseTo(2 * 4 + 870 * 3, 9);
    expect(orderScore('f1', job(0, 10, 1000, 16))).toBeCloseTo(3 * 16 + 870, 9);
  });

  it('f1 counts a zero requested or submit time as 0.1 s so the score stays finite', () => {
    expect(orderScore('f1', job(0, 0, 100, 2))).toBeCloseTo(2 * 2 - 870, 9);
    expect(orderScore('f1', job(0, 10, 0, 3))).toBeCloseTo(-3 + 870, 9);
  });
});

describe('compareBy', () => {
  const ids = (order: 'fcfs' | 'sjf' | 'f1', jobs: Array<ReturnType<typeof job>>) =>
    [...jobs].sort(compareBy(order)).map((j) => j.index);

  it('fcfs orders by submit time, then trace position', () => {
    expect(ids('fcfs', [job(2, 50, 1, 1), job(0, 10, 9, 1), job(1, 10, 5, 1)])).toEqual([0, 1, 2]);
  });

  it('sjf orders by requested time, ties by submit time, then trace position', () => {
    const jobs = [job(0, 30, 100, 1), job(1, 20, 100, 1), job(2, 40, 50, 1), job(3, 20, 100, 1)];
    expect(ids('sjf', jobs)).toEqual([2, 1, 3, 0]);
  });

  it('f1 prefers short, narrow, early jobs', () => {
    // Same submit time: the smaller r*n term wins; a much later submit loses despite a tiny job.
    const jobs = [job(0, 1000, 10_000, 64), job(1, 1000, 100, 1), job(2, 1_000_000, 1, 1)];
    expect(ids('f1', jobs)).toEqual([1, 0, 2]);
  });
});

describe('parseOrder', () => {
  it('accepts the three names in any case and rejects others clearly', () => {
    expect(parseOrder('SJF')).toBe('sjf');
    expect(parseOrder(' f1 ')).toBe('f1');
    try {
      parseOrder('lifo');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(IrisError);
      expect((err as IrisError).message).toBe('unknown order "lifo"');
      expect((err as IrisError).hint).toBe('use one of: fcfs, sjf, f1');
    }
  });
});

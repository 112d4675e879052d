import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, realTimers } from '../../../src/cluster/controller/timers.js';

const DAY = 86_400_000;

describe('realTimers.after', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires a short delay once, on time', () => {
    const fn = vi.fn();
    realTimers.after(1000, fn);
    vi.advanceTimersByTime(999);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * DAY);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('a 25-day delay (above what one Node timer holds) does not fire early', () => {
    const fn = vi.fn();
    realTimers.after(25 * DAY, fn);
    vi.advanceTimersByTime(1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(25 * DAY - MAX_TIMER_MS - 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('a delay of years fires exactly once at its end', () => {
    const fn = vi.fn();
    const ms = 3 * 365 * DAY + 123;
    realTimers.after(ms, fn);
    vi.advanceTimersByTime(ms - 1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('cancel stops a chained delay in any link', () => {
    const fn = vi.fn();
    const cancel = realTimers.after(60 * DAY, fn);
    vi.advanceTimersByTime(30 * DAY);
    cancel();
    vi.advanceTimersByTime(60 * DAY);
    expect(fn).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('Infinity never fires and holds no timer; a negative delay fires on the next turn', () => {
    const never = vi.fn();
    realTimers.after(Infinity, never);
    expect(vi.getTimerCount()).toBe(0);
    const soon = vi.fn();
    realTimers.after(-5, soon);
    vi.advanceTimersByTime(0);
    expect(soon).toHaveBeenCalledTimes(1);
    expect(never).not.toHaveBeenCalled();
  });
});

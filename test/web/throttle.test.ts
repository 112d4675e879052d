import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { throttle } from '../../src/web/throttle.js';

describe('throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs at once, then once more at the end of the interval for the calls within it', () => {
    const fn = vi.fn();
    const call = throttle(fn, 500);
    call();
    expect(fn).toHaveBeenCalledTimes(1);
    call();
    call();
    call();
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(499);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(2000);
    expect(fn).toHaveBeenCalledTimes(2);
    call();
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('cancel drops a pending run', () => {
    const fn = vi.fn();
    const call = throttle(fn, 500);
    call();
    call();
    call.cancel();
    vi.advanceTimersByTime(1000);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});

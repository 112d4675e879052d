/**
 * The controller's delays that tests must drive by hand together with an injected `now`:
 * attempt time limits, scheduling-timeout deadlines and deadlock grace ends. (The short
 * coalescing delay between passes uses setImmediate/setTimeout directly: it decides no outcome.)
 */
export interface Timers {
  /** Run `fn` once after `ms`; returns a function that cancels it. `unref`: do not keep the process alive. */
  after(ms: number, fn: () => void, unref?: boolean): () => void;
}

export const realTimers: Timers = {
  after(ms, fn, unref = false) {
    const timer = setTimeout(fn, ms);
    if (unref) timer.unref();
    return () => clearTimeout(timer);
  },
};

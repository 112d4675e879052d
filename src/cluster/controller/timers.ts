/**
 * The controller's only source of delays (attempt time limits, scheduling-timeout deadlines).
 * Injected so tests drive time by hand together with an injected `now`.
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

/**
 * Where the controller waits for a user-given length of time: attempt time limits,
 * scheduling-timeout deadlines, deadlock grace ends, the elastic coordinator's poll and `iris wait
 * --timeout`. Tests drive these by hand together with an injected `now`. (The short coalescing delay
 * between passes uses setImmediate/setTimeout directly: it decides no outcome. A stop's grace period,
 * config `stop-grace`, is waited for by each runtime itself, and the doors' `header-timeout` and
 * `request-timeout` by node:http, as server/connection-guard.ts sets them.)
 *
 * Guarantee: `after(ms, fn)` runs `fn` once, no earlier than `ms` from now, for any finite `ms`
 * up to years. Node's own timers overflow above 2^31-1 ms (~24.8 days) and then fire at once, so
 * a longer delay is a chain of timers of at most MAX_TIMER_MS each. A delay that is not a finite
 * number (Infinity) never fires; a negative one fires on the next turn.
 */
export interface Timers {
  /** Run `fn` once after `ms`; returns a function that cancels it. `unref`: do not keep the process alive. */
  after(ms: number, fn: () => void, unref?: boolean): () => void;
}

/**
 * What a controller part that waits and writes log lines is given (the supervisor, the elastic
 * coordinator): the controller's clock, its timers and its log (one line per call).
 */
export interface ClockedPart {
  now: () => number;
  timers: Timers;
  log: (message: string) => void;
}

/** The longest delay one Node timer can hold (2^31-1 ms); longer ones are chained. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `after` on Node's timers, chained for delays above MAX_TIMER_MS. The remaining time is counted
 * down per link (not read from the wall clock), so a clock step does not move the deadline.
 */
export function chainedTimeout(ms: number, fn: () => void, unref = false): () => void {
  let timer: NodeJS.Timeout | null = null;
  let cancelled = false;
  const arm = (left: number) => {
    if (cancelled || !(left < Infinity)) return; // NaN or Infinity: never
    const step = Math.min(Math.max(0, left), MAX_TIMER_MS);
    timer = setTimeout(() => {
      timer = null;
      if (left > MAX_TIMER_MS) arm(left - MAX_TIMER_MS);
      else if (!cancelled) fn();
    }, step);
    if (unref) timer.unref();
  };
  arm(ms);
  return () => {
    cancelled = true;
    if (timer) clearTimeout(timer);
    timer = null;
  };
}

export const realTimers: Timers = { after: chainedTimeout };

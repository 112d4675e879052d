/**
 * When the next scheduling pass may start (pass-loop.ts, its header: passes keep their share of the
 * event loop bounded), and the task tokens a pass hands out.
 */
import { randomBytes } from 'node:crypto';

/** Least time between two passes requested by submissions alone (at most ~50 such passes a second). */
export const ARRIVAL_PASS_INTERVAL_MS = 20;

/** A pass for freed capacity starts no sooner than this many times the last pass's duration after it began. */
export const PASS_SPACING = 5;
/** Passes shorter than this are never spaced out (a quiet cluster answers at once). */
const SPACED_PASS_MS = 1;
/**
 * The longest a pass waits for the spacing: reached only by passes of over 200 ms (tens of
 * thousands of jobs pending), whose spacing would otherwise let passes fill the event loop.
 */
export const MAX_PASS_DELAY_MS = 1000;

/** The last pass (performance.now() times, ms): when it began, how long it took, when the last arrival pass began. */
export interface LastPass {
  at: number;
  ms: number;
  arrivalAt: number;
}

/**
 * When the next pass may start (performance.now() time), per the header: PASS_SPACING times the
 * last pass's duration after it began, at most MAX_PASS_DELAY_MS, none after a pass under
 * SPACED_PASS_MS; a pass for submissions alone (`resourcesChanged` false) also no sooner than
 * ARRIVAL_PASS_INTERVAL_MS after the last such pass.
 */
export function passStartAt(last: LastPass, resourcesChanged: boolean): number {
  const spaced = last.ms < SPACED_PASS_MS ? -Infinity : last.at + Math.min(PASS_SPACING * last.ms, MAX_PASS_DELAY_MS);
  return resourcesChanged ? spaced : Math.max(last.arrivalAt + ARRIVAL_PASS_INTERVAL_MS, spaced);
}

/**
 * Task tokens: 18 random bytes each (base64url), cut from a pool drawn from the CSPRNG 4 KiB at
 * a time, not one getrandom call per task; a byte is never handed out twice.
 */
export class TokenPool {
  private pool = Buffer.alloc(0);
  private at = 0;

  next(): string {
    if (this.at + 18 > this.pool.length) {
      this.pool = randomBytes(18 * 227);
      this.at = 0;
    }
    const token = this.pool.toString('base64url', this.at, this.at + 18);
    this.at += 18;
    return token;
  }
}

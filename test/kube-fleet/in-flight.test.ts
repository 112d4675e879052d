/** The bound on requests in flight (src/kube/in-flight.ts): never above max, FIFO, a failure frees its slot. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InFlightLimit } from '../../src/kube/in-flight.js';

describe('InFlightLimit', () => {
  it('runs at most max at once, starts them in arrival order, and runs every one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 3 }), fail: fc.boolean() }), { maxLength: 60 }),
        async (max, jobs) => {
          const limit = new InFlightLimit(max);
          let open = 0;
          let peak = 0;
          const started: number[] = [];
          const results = await Promise.allSettled(
            jobs.map((job, i) =>
              limit.run(async () => {
                started.push(i);
                open++;
                peak = Math.max(peak, open);
                await new Promise((r) => setTimeout(r, job.ms));
                open--;
                if (job.fail) throw new Error(`job ${i}`);
                return i;
              }),
            ),
          );
          expect(peak).toBeLessThanOrEqual(max);
          expect(limit.peak).toBe(peak);
          expect(started).toEqual(jobs.map((_, i) => i));
          expect(results.map((r) => r.status)).toEqual(jobs.map((j) => (j.fail ? 'rejected' : 'fulfilled')));
          expect(limit.inFlight).toBe(0);
          expect(limit.queued).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a request arriving while a slot passes to a waiter does not take it too', async () => {
    const limit = new InFlightLimit(1);
    let open = 0;
    let peak = 0;
    const job = () =>
      limit.run(async () => {
        open++;
        peak = Math.max(peak, open);
        await Promise.resolve();
        open--;
      });
    const first = job();
    const second = job();
    await first;
    const third = job(); // arrives after the first ended and handed its slot to the second
    await Promise.all([second, third]);
    expect(peak).toBe(1);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new InFlightLimit(0)).toThrow(RangeError);
  });
});

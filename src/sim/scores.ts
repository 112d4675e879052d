/**
 * Ordering scores for simulation studies (lower runs first).
 *
 * - fcfs: submit time.
 * - sjf: requested time (the user's estimate), ties by submit time.
 * - f1: Carastan-Santos & de Camargo (SC 2017), log10(r)·n + 870·log10(s) with r the
 *   requested time, n the processors and s the submit time. A requested or submit time of 0
 *   (or below) counts as 0.1 s so the score stays finite, as RLScheduler's simulator does.
 *
 * `compareBy` gives a total order: equal scores fall back to submit time and then to the
 * job's position in the trace (`index`, when present), so a sort is deterministic.
 */
import { invalid } from '../model/errors.js';

export type OrderName = 'fcfs' | 'sjf' | 'f1';

export const ORDER_NAMES: readonly OrderName[] = ['fcfs', 'sjf', 'f1'];

export interface ScoredJob {
  submit: number;
  requestedTime: number;
  procs: number;
  index?: number;
}

/** Parses a user-given order name; unknown names get a clear error. */
export function parseOrder(name: string): OrderName {
  const lower = name.trim().toLowerCase();
  if ((ORDER_NAMES as readonly string[]).includes(lower)) return lower as OrderName;
  throw invalid(`unknown order "${name}"`, `use one of: ${ORDER_NAMES.join(', ')}`);
}

/** The job's score under `order`; lower scores are scheduled first. */
export function orderScore(order: OrderName, job: ScoredJob): number {
  switch (order) {
    case 'fcfs':
      return job.submit;
    case 'sjf':
      return job.requestedTime;
    case 'f1':
      return Math.log10(positive(job.requestedTime)) * job.procs + 870 * Math.log10(positive(job.submit));
  }
}

const positive = (seconds: number): number => (seconds > 0 ? seconds : 0.1);

/** Full comparator for `order`: score, then submit time, then trace position. */
export function compareBy(order: OrderName): (a: ScoredJob, b: ScoredJob) => number {
  return (a, b) => {
    const sa = orderScore(order, a);
    const sb = orderScore(order, b);
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (a.submit !== b.submit) return a.submit - b.submit;
    return (a.index ?? 0) - (b.index ?? 0);
  };
}

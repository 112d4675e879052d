/**
 * The preemption study (issue 32 §4, docs/simulate.md "Preemption study"): the mixed workload of
 * docs/examples/preemption.yaml (interactive jobs arriving into a cluster saturated with batch) run
 * without preemption, and with it at several exempt times (the grace as the config's default).
 *
 * Guarantees: each row is one `simulate` run with the engine, scheduler and report `iris simulate
 * [--preemption --preempt-exempt E]` uses, so the table in docs/simulate.md is reproduced exactly by
 * test/sim/preemption-study.test.ts (cells as text: `preemptionStudyCells`), and a row by the built
 * binary (test/e2e/simulate-preemption.test.ts).
 */
import { DEFAULT_PREEMPTION_GRACE_MS } from '../cluster/scheduler/preemption/plan.js';
import { simulate } from './engine.js';
import { createScheduler } from './policy.js';
import type { BandSummary, SimSummary } from './results.js';
import type { SimWorkload } from './workload.js';
import type { QueuePolicy } from '../cluster/scheduler/queue/options.js';

/** The study's runs: preemption off, then on with these exempt times (s). */
export const PREEMPTION_STUDY_EXEMPTS: readonly number[] = [0, 60, 600];

export interface PreemptionStudyRow {
  /** null: preemption off. */
  exempt: number | null;
  grace: number | null;
  interactive: BandSummary;
  batch: BandSummary;
  summary: SimSummary;
}

export function runPreemptionStudy(workload: SimWorkload, policy: QueuePolicy = 'easy'): PreemptionStudyRow[] {
  const grace = DEFAULT_PREEMPTION_GRACE_MS / 1000;
  return [null, ...PREEMPTION_STUDY_EXEMPTS].map((exempt) => {
    const scheduler = createScheduler({ policy, ...(exempt !== null ? { preemption: { exempt } } : {}) });
    const result = simulate(workload, { scheduler, ...(exempt !== null ? { preemption: { grace, exempt } } : {}) });
    const band = (name: string): BandSummary => {
      const found = result.summary.bands?.find((b) => b.band === name);
      if (!found) throw new Error(`the preemption study's workload has no finished ${name} job`);
      return found;
    };
    return {
      exempt,
      grace: exempt !== null ? grace : null,
      interactive: band('interactive'),
      batch: band('batch'),
      summary: result.summary,
    };
  });
}

/** Column headers of the study's table (docs/simulate.md). */
export const PREEMPTION_STUDY_HEADERS = [
  'preemption',
  'interactive wait mean (s)',
  'median (s)',
  'p95 (s)',
  'batch slowdown',
  'batch wait mean (s)',
  'tasks preempted',
  'CPU-s lost',
  'makespan (s)',
] as const;

/** One row as text: whole seconds, slowdowns to two decimals. */
export function preemptionStudyCells(row: PreemptionStudyRow): string[] {
  const whole = (n: number): string => String(Math.round(n));
  return [
    row.exempt === null ? 'off' : `exempt ${whole(row.exempt)} s`,
    whole(row.interactive.waitMean),
    whole(row.interactive.waitMedian),
    whole(row.interactive.waitP95),
    row.batch.slowdownMean.toFixed(2),
    whole(row.batch.waitMean),
    whole(row.summary.preemption?.tasks ?? 0),
    whole(row.summary.preemption?.lostCpuSeconds ?? 0),
    whole(row.summary.makespan),
  ];
}

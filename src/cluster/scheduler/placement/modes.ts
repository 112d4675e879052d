/**
 * Placement modes and selection strategies (docs/configuration.md, "Placement"): the one home of
 * their names, defaults and limits (the cluster config and the simulator take theirs from here).
 *
 * - `mode` decides how a task's worker is chosen among the feasible ones: `adaptive` scores
 *   throughput against cost (adaptive.ts); `first-fit` takes the first by `selection`. The
 *   baselines (baselines.ts, BASELINE_MODES) bind work to workers: `static-worker` a whole
 *   submission, `fixed-pipeline` a task type; `round-robin` rotates over the workers.
 *   Each mode (with its selection) is a named list of weighted scorers, listed in registry.ts;
 *   a new mode is one more name here and its entry there.
 * - `selection` orders workers that are otherwise equal: `first-fit` keeps worker order (no
 *   reordering); `min-satisfying` prefers the smallest worker that fits (throughput proxy μ̂
 *   ascending, then worker order), keeping big workers for big jobs.
 * - `lambda` per job category weighs throughput (λ) against cost (1 − λ); `jitter` > 0 turns on
 *   the rotation among identical workers (classes.ts) and sets the cost tie margin 2·jitter
 *   (adaptive-score.ts); 0: ties go to the worker idle longest.
 * - `keepAccelerators` keeps GPU and TPU workers for the jobs that ask for them (accelerators.ts).
 */
import { invalid } from '../../../model/errors.js';
import { validMergeOptions, type MergeOptions } from './merge.js';

export const PLACEMENT_MODES = ['adaptive', 'first-fit', 'static-worker', 'fixed-pipeline', 'round-robin'] as const;
export type PlacementMode = (typeof PLACEMENT_MODES)[number];

/** The baseline modes (baselines.ts): they keep state between passes (Snapshot.placementMemory). */
export const BASELINE_MODES = ['static-worker', 'fixed-pipeline', 'round-robin'] as const;
export type BaselineMode = (typeof BASELINE_MODES)[number];

export function isBaselineMode(mode: PlacementMode): mode is BaselineMode {
  return (BASELINE_MODES as readonly string[]).includes(mode);
}

export const SELECTIONS = ['first-fit', 'min-satisfying'] as const;
export type Selection = (typeof SELECTIONS)[number];

export interface Lambdas {
  training: number;
  inference: number;
  other: number;
}

export interface PlacementOptions {
  mode: PlacementMode;
  selection: Selection;
  lambda: Lambdas;
  jitter: number;
  /**
   * A job that asks for no GPU or TPU goes to a worker without accelerators when one can hold
   * it now (accelerators.ts); false turns the rule off. Applies to the scoring modes only.
   */
  keepAccelerators: boolean;
  /** Task merging (merge.ts), under the adaptive mode only; absent: DEFAULT_MERGE_OPTIONS. */
  merge?: MergeOptions;
}

/** The largest jitter allowed: its cost tie margin (2·jitter) must stay small beside the score differences. */
export const MAX_JITTER = 0.1;

/** Adaptive, worker order on ties, λ 0.8 / 0.4 / 0.5, jitter ±1e-3, accelerators kept for accelerator work. */
export const DEFAULT_PLACEMENT_OPTIONS: Readonly<PlacementOptions> = Object.freeze({
  mode: 'adaptive',
  selection: 'first-fit',
  lambda: Object.freeze({ training: 0.8, inference: 0.4, other: 0.5 }),
  jitter: 1e-3,
  keepAccelerators: true,
});

function unit(name: string, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0 || value > 1) {
    throw invalid(
      `placement lambda ${name} must be a number from 0 to 1, got ${String(value)}`,
      'λ weighs throughput (1) against cost (0)',
    );
  }
  return value;
}

/** What a caller may give: any of the options, λ per category in part. */
export type GivenPlacementOptions = Partial<Omit<PlacementOptions, 'lambda' | 'merge'>> & {
  lambda?: Partial<Lambdas>;
  merge?: Partial<MergeOptions>;
};

/**
 * Options with defaults filled in; a clear IrisError for anything unknown or out of range.
 * (registry.ts `placementOptions` resolves them to their scorer list.)
 */
export function validPlacementOptions(given: GivenPlacementOptions = {}): PlacementOptions {
  const mode = given.mode ?? DEFAULT_PLACEMENT_OPTIONS.mode;
  const selection = given.selection ?? DEFAULT_PLACEMENT_OPTIONS.selection;
  if (!(PLACEMENT_MODES as readonly string[]).includes(mode)) {
    throw invalid(`unknown placement mode ${JSON.stringify(mode)}`, `use one of: ${PLACEMENT_MODES.join(', ')}`);
  }
  if (!(SELECTIONS as readonly string[]).includes(selection)) {
    throw invalid(`unknown placement selection ${JSON.stringify(selection)}`, `use one of: ${SELECTIONS.join(', ')}`);
  }
  const l = { ...DEFAULT_PLACEMENT_OPTIONS.lambda, ...given.lambda };
  const jitter = given.jitter ?? DEFAULT_PLACEMENT_OPTIONS.jitter;
  if (typeof jitter !== 'number' || Number.isNaN(jitter) || jitter < 0 || jitter > MAX_JITTER) {
    throw invalid(
      `placement jitter must be a number from 0 to ${MAX_JITTER}, got ${String(jitter)}`,
      'for example jitter: 0.001',
    );
  }
  const keepAccelerators = given.keepAccelerators ?? DEFAULT_PLACEMENT_OPTIONS.keepAccelerators;
  if (typeof keepAccelerators !== 'boolean') {
    throw invalid(
      `placement keep-accelerators must be true or false, got ${String(keepAccelerators)}`,
      'false lets jobs that ask for no GPU or TPU score accelerator workers like any other',
    );
  }
  return {
    mode,
    selection,
    lambda: {
      training: unit('training', l.training),
      inference: unit('inference', l.inference),
      other: unit('other', l.other),
    },
    jitter,
    keepAccelerators,
    merge: validMergeOptions(given.merge),
  };
}

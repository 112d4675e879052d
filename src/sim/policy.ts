/**
 * The scheduler the simulator drives: the live cluster's queue policy code, configured from
 * the command line (defaults as in the cluster config: queue depth 32, reservation depth 64),
 * and the placement it uses (`--placement MODE --selection S`, issue 15 §3).
 *
 * `placementFor` is the ONE place a placement mode and selection become the scheduler's
 * placement options. Modes this build does not implement yet are reported as unavailable
 * (createScheduler refuses them with a clear error; the dispatch study prints them as "not
 * available"), never silently replaced by another mode.
 */
import { invalid } from '../model/errors.js';
import { QueueScheduler } from '../cluster/scheduler/queue/index.js';
import { DEFAULT_QUEUE_OPTIONS, QUEUE_POLICIES, type QueuePolicy } from '../cluster/scheduler/queue/options.js';
import {
  DEFAULT_PLACEMENT_OPTIONS,
  PLACEMENT_MODES as SCHEDULER_MODES,
  placementOptions,
  type PlacementOptions as SchedulerPlacement,
} from '../cluster/scheduler/index.js';
import type { PassScheduler } from './engine.js';

export const PLACEMENT_MODES = ['adaptive', 'first-fit', 'static-worker', 'fixed-pipeline', 'round-robin'] as const;
export type PlacementMode = (typeof PLACEMENT_MODES)[number];
export const SELECTIONS = ['first-fit', 'min-satisfying'] as const;
export type Selection = (typeof SELECTIONS)[number];

/** What the simulator runs when no --placement / --selection is given: the cluster's defaults (config `placement`). */
export const DEFAULT_PLACEMENT: PlacementMode = DEFAULT_PLACEMENT_OPTIONS.mode;
export const DEFAULT_SELECTION: Selection = DEFAULT_PLACEMENT_OPTIONS.selection;

export interface PlacementOptions {
  mode: PlacementMode;
  selection: Selection;
}

/** How the scheduler places for one mode and selection, or why this build cannot. */
export type PlacementChoice =
  | { available: true; mode: PlacementMode; selection: Selection; options: SchedulerPlacement }
  | { available: false; mode: PlacementMode; selection: Selection; reason: string };

export interface SimPolicyOptions {
  policy: QueuePolicy;
  queueDepth?: number;
  reservationDepth?: number;
  /** Placement mode and selection (default first-fit, first-fit). */
  placement?: PlacementOptions;
}

export function parsePolicy(name: string): QueuePolicy {
  const lower = name.trim().toLowerCase();
  if ((QUEUE_POLICIES as readonly string[]).includes(lower)) return lower as QueuePolicy;
  throw invalid(`unknown policy "${name}"`, `use one of: ${QUEUE_POLICIES.join(', ')}`);
}

export function parsePlacementMode(name: string): PlacementMode {
  const lower = name.trim().toLowerCase();
  if ((PLACEMENT_MODES as readonly string[]).includes(lower)) return lower as PlacementMode;
  throw invalid(`unknown placement mode "${name}"`, `use one of: ${PLACEMENT_MODES.join(', ')}`);
}

export function parseSelection(name: string): Selection {
  const lower = name.trim().toLowerCase();
  if ((SELECTIONS as readonly string[]).includes(lower)) return lower as Selection;
  throw invalid(`unknown selection "${name}"`, `use one of: ${SELECTIONS.join(', ')}`);
}

/**
 * The one mapping from a placement mode and selection to the scheduler's placement options
 * (cluster/scheduler/placement/modes.ts, with the cluster's defaults for λ and jitter). A mode
 * the scheduler's registry does not have yet (the baselines) is unavailable.
 */
export function placementFor(options: PlacementOptions): PlacementChoice {
  const { mode, selection } = options;
  if ((SCHEDULER_MODES as readonly string[]).includes(mode)) {
    return { available: true, mode, selection, options: placementOptions({ mode: mode as SchedulerPlacement['mode'], selection }) };
  }
  return { available: false, mode, selection, reason: `placement mode ${mode} is not available in this build of the scheduler` };
}

export function createScheduler(options: SimPolicyOptions): PassScheduler {
  const queueDepth = options.queueDepth ?? DEFAULT_QUEUE_OPTIONS.queueDepth;
  const reservationDepth = options.reservationDepth ?? DEFAULT_QUEUE_OPTIONS.reservationDepth;
  if (!Number.isInteger(queueDepth) || queueDepth < 1) throw invalid(`invalid queue depth ${queueDepth}: expected a whole number of at least 1`);
  if (!Number.isInteger(reservationDepth) || reservationDepth < 1) {
    throw invalid(`invalid reservation depth ${reservationDepth}: expected a whole number of at least 1`);
  }
  const placement = placementFor(options.placement ?? { mode: DEFAULT_PLACEMENT, selection: DEFAULT_SELECTION });
  if (!placement.available) throw invalid(placement.reason, `available: ${SCHEDULER_MODES.join(', ')}`);
  // Every job of a simulation carries its own time limit, so the default never applies.
  return new QueueScheduler({ policy: options.policy, queueDepth, reservationDepth, defaultTimeLimitMs: Infinity }, placement.options);
}

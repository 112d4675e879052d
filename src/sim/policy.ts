/**
 * The scheduler the simulator drives: the live cluster's queue policy code, configured from
 * the command line (defaults as in the cluster config: queue depth 32, reservation depth 64),
 * and the placement it uses (`--placement MODE --selection S`, issue 15 §3). Mode and selection
 * names, defaults and limits are the scheduler's (cluster/scheduler/placement/modes.ts);
 * `placementFor` is the one place they become the scheduler's placement profile (its scorers).
 */
import { invalid } from '../model/errors.js';
import { namedQueueSpecs, QueueSet } from '../cluster/scheduler/queue/index.js';
import type { QueuesConfig } from '../config/schema/queues.js';
import { DEFAULT_QUEUE_OPTIONS, QUEUE_POLICIES, type QueuePolicy } from '../cluster/scheduler/queue/options.js';
import {
  DEFAULT_PLACEMENT_OPTIONS,
  PLACEMENT_MODES,
  SELECTIONS,
  placementOptions,
  type PlacementMode,
  type PlacementProfile,
  type Selection,
} from '../cluster/scheduler/index.js';
import type { PassScheduler } from './engine.js';

/** The choices and defaults `iris simulate` offers: the scheduler's own, which the command takes from here. */
export { DEFAULT_QUEUE_OPTIONS, PLACEMENT_MODES, QUEUE_POLICIES, SELECTIONS, type PlacementMode, type Selection };
export {
  DEFAULT_PREEMPTION_EXEMPT_MS,
  DEFAULT_PREEMPTION_GRACE_MS,
} from '../cluster/scheduler/preemption/plan.js';

/** What the simulator runs when no --placement / --selection is given: the cluster's defaults (config `placement`). */
export const DEFAULT_PLACEMENT: PlacementMode = DEFAULT_PLACEMENT_OPTIONS.mode;
export const DEFAULT_SELECTION: Selection = DEFAULT_PLACEMENT_OPTIONS.selection;

export interface PlacementOptions {
  mode: PlacementMode;
  selection: Selection;
  /** Task merging (config `placement.merge`; adaptive only); absent: the cluster's default (on, batches of 4). */
  merge?: { enabled: boolean; maxBatch: number };
}

export interface SimPolicyOptions {
  policy: QueuePolicy;
  queueDepth?: number;
  reservationDepth?: number;
  /** Placement mode and selection (default first-fit, first-fit). */
  placement?: PlacementOptions;
  /**
   * Plan preemptions (queue options `preemption`) with this exempt time, in seconds: the simulator's
   * clock, which the scheduler's snapshot times are in. Absent: off (bands still order the queue).
   */
  preemption?: { exempt: number };
  /**
   * Named queues (a workload's `queues:`): each with its own policy and depths over its workers,
   * run by the cluster's QueueSet; the options above are the base of each. Absent: one queue.
   */
  queues?: QueuesConfig | null;
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

/** The one mapping from a mode and selection to the scheduler's profile (the cluster's defaults for λ and jitter). */
export function placementFor(options: PlacementOptions): PlacementProfile {
  return placementOptions({
    mode: options.mode,
    selection: options.selection,
    ...(options.merge ? { merge: options.merge } : {}),
  });
}

export function createScheduler(options: SimPolicyOptions): PassScheduler {
  const queueDepth = options.queueDepth ?? DEFAULT_QUEUE_OPTIONS.queueDepth;
  const reservationDepth = options.reservationDepth ?? DEFAULT_QUEUE_OPTIONS.reservationDepth;
  if (!Number.isInteger(queueDepth) || queueDepth < 1)
    throw invalid(`invalid queue depth ${queueDepth}: expected a whole number of at least 1`);
  if (!Number.isInteger(reservationDepth) || reservationDepth < 1) {
    throw invalid(`invalid reservation depth ${reservationDepth}: expected a whole number of at least 1`);
  }
  const given = options.placement ?? { mode: DEFAULT_PLACEMENT, selection: DEFAULT_SELECTION };
  // A preempted merged attempt would requeue its members outside the engine's queue: no merging with preemption.
  const placement = placementFor(options.preemption ? { ...given, merge: { enabled: false, maxBatch: 1 } } : given);
  // Every job of a simulation carries its own time limit, so the default never applies.
  const named = options.queues ?? null;
  const make = (explain: boolean): QueueSet =>
    new QueueSet(
      {
        policy: options.policy,
        queueDepth,
        reservationDepth,
        defaultTimeLimitMs: Infinity,
        ...(options.preemption ? { preemption: { exemptMs: options.preemption.exempt } } : {}),
        ...(explain ? {} : { explain: false }),
      },
      placement,
      named && namedQueueSpecs(named),
    );
  const scheduler = make(true);
  // Reason text is most of a pass's cost and the engine reads it only for jobs left at the end.
  return {
    pass: (snapshot, resourcesChanged) => scheduler.pass(snapshot, resourcesChanged),
    withoutReasons: () => make(false),
  };
}

/**
 * The built-in placement modes as named lists of weighted scorers (scoring.ts), and the one place
 * a pass turns a PlacementProfile into its chooser (`passSelector`). The cluster config and the simulator
 * name a mode and a selection (modes.ts); `placementOptions` checks them and looks the list up
 * here, so a scorer added to an entry below reaches the live cluster, the simulator and the
 * tests alike.
 *
 * | mode           | scorers (weight)                                  | tie-breakers          | record |
 * | first-fit      | worker order (1); min-satisfying: smallest fit (1)  | —                   | none   |
 * | adaptive       | age, throughput/cost (λ), reuse (1 each)          | rotation, idle longest, [smallest fit] | scored |
 * | static-worker  | static-worker (1)                                 | [smallest fit]        | pool   |
 * | fixed-pipeline | fixed-pipeline (1)                                | [smallest fit]        | pool   |
 * | round-robin    | round-robin (1); selection does not apply         | —                     | pool   |
 *
 * ([smallest fit]: with selection min-satisfying.) Worker order breaks every remaining tie.
 * With placement.keep-accelerators (the default) the scoring modes, adaptive and first-fit, have
 * the accelerator rule (accelerators.ts, KEEP_ACCELERATORS) in front of their list: a job that
 * asks for no GPU or TPU is placed among the candidates without accelerators when any can hold
 * it now. The baselines bind work as their seed describes and do not take it.
 *
 * Fast paths: a profile whose list is exactly first-fit's takes the FreePool (no chooser:
 * queue/first-fit.ts, queue/allocate.ts; with the accelerator rule its members list the workers
 * without accelerators first for a plain job); one whose list is exactly adaptive's takes the
 * AdaptiveSelector (ranked orders, adaptive.ts), either with or without the rule in front.
 * "Exactly" compares the scorers, weights, tie-breakers and record, so any other list — a scorer
 * added to a mode, a weight changed — runs the generic ScoredSelector, which is what those fast
 * paths are checked against.
 */
import { KEEP_ACCELERATORS } from './accelerators.js';
import { AdaptiveSelector } from './adaptive.js';
import { FIXED_PIPELINE, ROUND_ROBIN, STATIC_WORKER } from './baselines.js';
import type { PlacementView } from './filters.js';
import {
  validPlacementOptions,
  type GivenPlacementOptions,
  type PlacementMode,
  type PlacementOptions,
  type Selection,
} from './modes.js';
import { ADAPTIVE_TERMS, IDLE_LONGEST, ROTATION, SMALLEST_FIT, WORKER_ORDER } from './scorers.js';
import { ScoredSelector } from './scored.js';
import type { PassSelector, PlacementProfile, WeightedScorer, WorkerScorer } from './scoring.js';
import type { Snapshot } from '../types.js';

type ModeList = Pick<PlacementProfile, 'name' | 'scorers' | 'tieBreakers' | 'record'>;

const one = (scorer: WorkerScorer): readonly WeightedScorer[] => Object.freeze([Object.freeze({ scorer, weight: 1 })]);
const FIRST_FIT_LIST = one(WORKER_ORDER);
const NO_TIES: readonly WorkerScorer[] = Object.freeze([]);
const SMALLEST: readonly WorkerScorer[] = Object.freeze([SMALLEST_FIT]);
const IDLE: readonly WorkerScorer[] = Object.freeze([ROTATION, IDLE_LONGEST]);
const IDLE_SMALLEST: readonly WorkerScorer[] = Object.freeze([ROTATION, IDLE_LONGEST, SMALLEST_FIT]);

/** A binding baseline: `scorer` alone, smallest fit breaking ties under min-satisfying. */
function binding(mode: PlacementMode, scorer: WorkerScorer): Record<Selection, ModeList> {
  const scorers = one(scorer);
  return {
    'first-fit': { name: mode, scorers, tieBreakers: NO_TIES, record: 'pool' },
    'min-satisfying': { name: `${mode}+min-satisfying`, scorers, tieBreakers: SMALLEST, record: 'pool' },
  };
}

/** Mode -> selection -> its list (the table in the header). */
export const MODE_LISTS: Readonly<Record<PlacementMode, Readonly<Record<Selection, ModeList>>>> = {
  'first-fit': {
    'first-fit': { name: 'first-fit', scorers: FIRST_FIT_LIST, tieBreakers: NO_TIES, record: 'none' },
    'min-satisfying': {
      name: 'first-fit+min-satisfying',
      scorers: one(SMALLEST_FIT),
      tieBreakers: NO_TIES,
      record: 'none',
    },
  },
  adaptive: {
    'first-fit': { name: 'adaptive', scorers: ADAPTIVE_TERMS, tieBreakers: IDLE, record: 'scored' },
    'min-satisfying': {
      name: 'adaptive+min-satisfying',
      scorers: ADAPTIVE_TERMS,
      tieBreakers: IDLE_SMALLEST,
      record: 'scored',
    },
  },
  'static-worker': binding('static-worker', STATIC_WORKER),
  'fixed-pipeline': binding('fixed-pipeline', FIXED_PIPELINE),
  'round-robin': {
    'first-fit': { name: 'round-robin', scorers: one(ROUND_ROBIN), tieBreakers: NO_TIES, record: 'pool' },
    'min-satisfying': { name: 'round-robin', scorers: one(ROUND_ROBIN), tieBreakers: NO_TIES, record: 'pool' },
  },
};

/** The modes that score every feasible worker, where placement.keep-accelerators applies (accelerators.ts). */
const SCORING_MODES: readonly PlacementMode[] = ['adaptive', 'first-fit'];

const KEEP: WeightedScorer = Object.freeze({ scorer: KEEP_ACCELERATORS, weight: 1 });

/** `list` with the accelerator rule in front (its score is 0: it acts on the pool). */
const keeping = (list: readonly WeightedScorer[]): readonly WeightedScorer[] => Object.freeze([KEEP, ...list]);

/** `options` with the scorer list of their mode and selection. */
export function placementOf(options: PlacementOptions): PlacementProfile {
  const list = MODE_LISTS[options.mode][options.selection];
  if (!options.keepAccelerators || !SCORING_MODES.includes(options.mode)) return Object.freeze({ ...options, ...list });
  return Object.freeze({ ...options, ...list, scorers: keeping(list.scorers) });
}

/** True when `p` keeps accelerators for accelerator work (accelerators.ts). */
export function keepsAccelerators(p: PlacementProfile): boolean {
  return p.scorers.length > 0 && p.scorers[0]!.scorer === KEEP_ACCELERATORS;
}

/** `p`'s scorers without the accelerator rule in front. */
const withoutKeep = (p: PlacementProfile): readonly WeightedScorer[] =>
  keepsAccelerators(p) && p.scorers[0]!.weight === 1 ? p.scorers.slice(1) : p.scorers;

/** Options with defaults filled in and checked (modes.ts), resolved to their mode's scorer list. */
export function placementOptions(given: GivenPlacementOptions = {}): PlacementProfile {
  return placementOf(validPlacementOptions(given));
}

/** Plain first-fit in worker order: what `schedule(snapshot)` does when given no placement. */
export const FIRST_FIT_PLACEMENT: PlacementProfile = placementOptions({ mode: 'first-fit' });

function sameScorers(a: readonly WeightedScorer[], b: readonly WeightedScorer[]): boolean {
  return a.length === b.length && a.every((s, i) => s.scorer === b[i]!.scorer && s.weight === b[i]!.weight);
}

function sameTies(a: readonly WorkerScorer[], b: readonly WorkerScorer[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** True when `p` is plain first-fit, which the FreePool answers without scoring anyone. */
export function isFirstFit(p: PlacementProfile): boolean {
  return p.record === 'none' && sameScorers(withoutKeep(p), FIRST_FIT_LIST) && p.tieBreakers.length === 0;
}

/** True when `p` is adaptive placement exactly (either selection), which the AdaptiveSelector implements. */
export function isAdaptive(p: PlacementProfile): boolean {
  return (
    p.record === 'scored' &&
    sameScorers(withoutKeep(p), ADAPTIVE_TERMS) &&
    (sameTies(p.tieBreakers, IDLE) || sameTies(p.tieBreakers, IDLE_SMALLEST))
  );
}

/** Which fast path a profile takes, found once per frozen profile (placementOf's: they never change). */
const fastPaths = new WeakMap<PlacementProfile, 'first-fit' | 'adaptive' | 'scored'>();

function fastPathOf(p: PlacementProfile): 'first-fit' | 'adaptive' | 'scored' {
  let path = fastPaths.get(p);
  if (path === undefined) {
    path = isFirstFit(p) ? 'first-fit' : isAdaptive(p) ? 'adaptive' : 'scored';
    const frozen = Object.isFrozen(p) && Object.isFrozen(p.scorers) && Object.isFrozen(p.tieBreakers);
    if (frozen && p.scorers.every((s) => Object.isFrozen(s))) fastPaths.set(p, path);
  }
  return path;
}

/** One pass's chooser for `placement`: null for the first-fit fast path. */
export function passSelector(
  placement: PlacementProfile,
  snapshot: Snapshot,
  view: PlacementView,
): PassSelector | null {
  const path = fastPathOf(placement);
  if (path === 'first-fit') return null;
  if (path === 'adaptive') return new AdaptiveSelector(snapshot, placement, view.capacity ?? null);
  return new ScoredSelector(snapshot, view, placement);
}

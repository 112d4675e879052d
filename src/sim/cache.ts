/**
 * Context reuse in the simulator, what is its own: a task starting on a worker pays the load time
 * (SimWorkload.models) of every key it uses that is not warm there, and a start where every key is
 * warm is a reuse hit. Which keys are warm, and the hints an ended attempt leaves, are the live
 * rules (cluster/lifecycle/cache-hints.ts) applied to the simulator's state (state.ts). A workload
 * without `uses` never creates one (the engine skips all of this).
 */
import type { SimState } from './state.js';

export interface CacheStart {
  /** Seconds of loading the keys that were not warm. */
  load: number;
  /** Every key was warm. */
  hit: boolean;
}

export class ContextCache {
  constructor(
    private readonly models: Readonly<Record<string, number>>,
    private readonly state: SimState,
  ) {}

  /** A task using `uses` is about to start on `worker` (before its attempt is live): what it loads. */
  start(worker: string, uses: readonly string[], now: number): CacheStart {
    let load = 0;
    for (const key of uses) if (!this.state.isWarm(worker, key, now)) load += this.models[key] ?? 0;
    // A start that loads nothing is a hit (a key with no load time costs nothing, as it always did).
    return { load, hit: load === 0 };
  }
}

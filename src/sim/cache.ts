/**
 * Context reuse in the simulator: which workers hold which models (keys jobs `use`), mirroring
 * the live store's rules (src/cluster/state/cache-hints.ts) on the virtual clock.
 *
 * Rules:
 * - A key is WARM on a worker at `now` when the worker has a fresh hint for it (expiresAt > now)
 *   or a task using it runs there now (`loading`: the model is there or on its way).
 * - A task starting on a worker pays the load time (SimWorkload.models) of every key it uses that
 *   is not warm there; a start where every key is warm is a reuse hit.
 * - When a task using keys ends on a worker, each key gets a hint until end + TTL (a later end
 *   there refreshes it).
 * - The snapshot's view (`hints(now)`) has the fresh hints, plus `loading` for keys of running
 *   tasks with expiresAt = max(hint, now + TTL), as the live store reports them. It is rebuilt
 *   only when a hint or a running task changed, or the clock moved; expired hints are left out.
 * A workload without `uses` never creates one (the engine skips all of this).
 */
import type { CacheHint } from '../cluster/scheduler/types.js';

type HintView = ReadonlyMap<string, ReadonlyMap<string, CacheHint>>;

export interface CacheStart {
  /** Seconds of loading the keys that were not warm. */
  load: number;
  /** Every key was warm. */
  hit: boolean;
}

export class ContextCache {
  /** worker -> key -> expiresAt. */
  private readonly stored = new Map<string, Map<string, number>>();
  /** worker -> key -> running tasks using it there. */
  private readonly running = new Map<string, Map<string, number>>();
  private view: HintView = new Map();
  private viewAt = -Infinity;
  private changed = false;

  constructor(
    private readonly models: Readonly<Record<string, number>>,
    /** Seconds a hint stays fresh after a task using the key ended. */
    private readonly ttl: number,
  ) {}

  /** True when `key` is warm on `worker` at `now`. */
  warm(worker: string, key: string, now: number): boolean {
    if ((this.running.get(worker)?.get(key) ?? 0) > 0) return true;
    return (this.stored.get(worker)?.get(key) ?? -Infinity) > now;
  }

  /** A task using `uses` starts on `worker`: what it loads; its keys count as loading until end(). */
  start(worker: string, uses: readonly string[], now: number): CacheStart {
    let load = 0;
    for (const key of uses) if (!this.warm(worker, key, now)) load += this.models[key] ?? 0;
    const counts = entry(this.running, worker);
    for (const key of uses) counts.set(key, (counts.get(key) ?? 0) + 1);
    this.changed = true;
    return { load, hit: load === 0 && uses.every((key) => this.warm(worker, key, now)) };
  }

  /** A task using `uses` ended on `worker` at `now`: hints until now + TTL. */
  end(worker: string, uses: readonly string[], now: number): void {
    const counts = this.running.get(worker)!;
    const hints = entry(this.stored, worker);
    for (const key of uses) {
      const n = (counts.get(key) ?? 1) - 1;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
      hints.set(key, now + this.ttl);
    }
    this.changed = true;
  }

  /** Worker id -> key -> hint in force at `now` (Snapshot.cacheHints). */
  hints(now: number): HintView {
    if (!this.changed && now === this.viewAt) return this.view;
    const out = new Map<string, Map<string, CacheHint>>();
    for (const [worker, keys] of this.stored) {
      for (const [key, expiresAt] of keys) {
        if (expiresAt > now) entry(out, worker).set(key, { key, expiresAt, loading: false });
        else keys.delete(key);
      }
    }
    for (const [worker, keys] of this.running) {
      for (const key of keys.keys()) {
        const hints = entry(out, worker);
        hints.set(key, { key, expiresAt: Math.max(hints.get(key)?.expiresAt ?? 0, now + this.ttl), loading: true });
      }
    }
    this.view = out;
    this.viewAt = now;
    this.changed = false;
    return out;
  }
}

function entry<V>(map: Map<string, Map<string, V>>, worker: string): Map<string, V> {
  let inner = map.get(worker);
  if (!inner) map.set(worker, (inner = new Map()));
  return inner;
}

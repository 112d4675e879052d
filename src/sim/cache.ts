/**
 * Context reuse in the simulator: the simulator's table of hints (worker -> key -> expiresAt) and
 * of the keys its running tasks use, kept on the virtual clock with the live rules
 * (cluster/lifecycle/cache-hints.ts: what an ended attempt leaves, freshness, warmth, the hints
 * in force). What is the simulator's own: a start pays the load time (SimWorkload.models) of
 * every key it uses that is not warm on its worker; a start where every key is warm is a reuse hit.
 *
 * The snapshot's view (`hints(now)`) is rebuilt only when a hint or a running task changed, or the
 * clock moved. A workload without `uses` never creates one (the engine skips all of this).
 */
import { hintsInForce, hintsOfEndedAttempt, isWarm, type HintsInForce } from '../cluster/lifecycle/cache-hints.js';
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
  private view: HintsInForce = new Map();
  private viewAt = -Infinity;
  private changed = false;

  constructor(
    private readonly models: Readonly<Record<string, number>>,
    /** Seconds a hint stays fresh after a task using the key ended. */
    private readonly ttl: number,
  ) {}

  /** True when `key` is warm on `worker` at `now`. */
  warm(worker: string, key: string, now: number): boolean {
    return isWarm(this.stored.get(worker)?.get(key), (this.running.get(worker)?.get(key) ?? 0) > 0, now);
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

  /** A task using `uses` that ran on `worker` ended at `now`: the hints its end leaves. */
  end(worker: string, uses: readonly string[], now: number): void {
    const counts = this.running.get(worker)!;
    for (const key of uses) {
      const n = (counts.get(key) ?? 1) - 1;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    }
    const ending = { worker, ran: true, uses, known: true };
    for (const hint of hintsOfEndedAttempt(ending, this.stored.get(worker), now, this.ttl)) {
      if (hint.expiresAt === null) this.stored.get(worker)?.delete(hint.key);
      else entry(this.stored, worker).set(hint.key, hint.expiresAt);
    }
    this.changed = true;
  }

  /** Worker id -> key -> hint in force at `now` (Snapshot.cacheHints). */
  hints(now: number): HintView {
    if (!this.changed && now === this.viewAt) return this.view;
    this.view = hintsInForce(this.stored, runningKeys(this.running), now, this.ttl);
    this.viewAt = now;
    this.changed = false;
    return this.view;
  }
}

function* runningKeys(running: ReadonlyMap<string, ReadonlyMap<string, number>>): Generator<readonly [string, Iterable<string>]> {
  for (const [worker, keys] of running) yield [worker, keys.keys()];
}

function entry<V>(map: Map<string, Map<string, V>>, worker: string): Map<string, V> {
  let inner = map.get(worker);
  if (!inner) map.set(worker, (inner = new Map()));
  return inner;
}

/**
 * Context reuse for one adaptive pass (adaptive.ts, issue 15 §2), pure: which workers are warm for
 * a job and how busy they are with its keys. A worker is warm for a job when it holds, for EVERY
 * key the job `uses`, a hint that is loading or has expiresAt > now (stale hints are neutral);
 * its warmth is then 1 + the most tasks already using one of those keys there: 1 for a loading
 * hint (a task runs there now) plus the tasks of that key this pass placed there (`placed`).
 * Warmth 0 means not warm. Hints are read once, at construction, into typed arrays per key.
 */
import type { SchedulerJob, Snapshot } from '../types.js';

/** A worker's hint for one key this pass: none or stale (never warm), fresh, or loading. */
const COLD = 0,
  FRESH = 1,
  LOADING = 2;

export class PassHints {
  /** Key (with a fresh or loading hint somewhere) -> its index in keyState / keyPlaced. */
  private readonly keyIndex = new Map<string, number>();
  /** Per key index, per worker: COLD, FRESH or LOADING (n bytes per key with a live hint). */
  private readonly keyState: Uint8Array[] = [];
  /** Per key index, per worker: tasks using the key placed there this pass (allocated on the first). */
  private readonly keyPlaced: Array<Int32Array | undefined> = [];
  /** Job name -> the key indices of what it `uses` (-1: no live hint anywhere), or null when it uses nothing. */
  private readonly jobKeys = new Map<string, Int32Array | null>();
  private lastJob: SchedulerJob | undefined;
  private lastKeys: Int32Array | null = null;
  /** Key -> workers holding a fresh or loading hint for it (the only ones that can be warm). */
  private readonly holders = new Map<string, number[]>();
  /** True when the snapshot has any hint at all (fresh or not). */
  readonly any: boolean;

  constructor(snapshot: Snapshot) {
    const workers = snapshot.workers;
    const n = workers.length;
    this.any = snapshot.cacheHints !== undefined && snapshot.cacheHints.size > 0;
    if (!this.any) return;
    for (let w = 0; w < n; w++) {
      const hints = snapshot.cacheHints!.get(workers[w]!.id);
      if (!hints) continue;
      for (const [key, hint] of hints) {
        if (!hint.loading && !(hint.expiresAt > snapshot.now)) continue; // stale: never warm this pass
        let list = this.holders.get(key);
        if (!list) {
          this.holders.set(key, (list = []));
          this.keyIndex.set(key, this.keyState.length);
          this.keyState.push(new Uint8Array(n));
          this.keyPlaced.push(undefined);
        }
        list.push(w);
        this.keyState[this.keyIndex.get(key)!]![w] = hint.loading ? LOADING : FRESH;
      }
    }
  }

  /** The workers holding a fresh or loading hint for `key`, in snapshot order. */
  holdersOf(key: string): readonly number[] {
    return this.holders.get(key) ?? [];
  }

  /** 0 when `w` is not warm for `job` (or the job uses nothing), else 1 + the tasks already using its keys there. */
  warmth(job: SchedulerJob, w: number): number {
    const keys = this.keysOf(job);
    return keys === null ? 0 : this.warmthOf(keys, w);
  }

  /** `warmth` for a job using the keys `keys` (keysOf). */
  warmthOf(keys: Int32Array, w: number): number {
    let busy = 0;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k < 0) return 0;
      const state = this.keyState[k]![w]!;
      if (state === COLD) return 0;
      const n = (state === LOADING ? 1 : 0) + (this.keyPlaced[k]?.[w] ?? 0);
      if (n > busy) busy = n;
    }
    return 1 + busy;
  }

  /**
   * A task of `job` was placed on `w` (of `n` workers): it now uses the job's keys there. True
   * when w holds a live hint for one of them: only then can its warmth for some keys have risen.
   */
  placed(job: SchedulerJob, w: number, n: number): boolean {
    const keys = this.keysOf(job);
    if (keys === null) return false;
    let held = false;
    // A key with no live hint anywhere makes no worker warm: its count is never read.
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k < 0) continue;
      (this.keyPlaced[k] ??= new Int32Array(n))[w]!++;
      if (this.keyState[k]![w] !== COLD) held = true;
    }
    return held;
  }

  /** The key indices of `job.uses` (cached per job; -1: no live hint anywhere), or null when it uses nothing. */
  keysOf(job: SchedulerJob): Int32Array | null {
    if (job === this.lastJob) return this.lastKeys; // a job's tasks come one after another
    let keys = this.jobKeys.get(job.name);
    if (keys === undefined) {
      const uses = job.uses;
      keys = !uses || uses.length === 0 ? null : Int32Array.from(uses, (key) => this.keyIndex.get(key) ?? -1);
      this.jobKeys.set(job.name, keys);
    }
    this.lastJob = job;
    this.lastKeys = keys;
    return keys;
  }
}

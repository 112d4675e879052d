/**
 * The task/worker density series (docs/metrics.md, "Density series"): per bucket, the tasks
 * submitted and the active (READY) workers, written to `<home>/metrics/task_worker_density.json`.
 *
 * Guarantees:
 * - Buckets are aligned to multiples of the bucket length and contiguous: a bucket with no event
 *   gets 0 submissions and the worker count of the bucket before it (a gap longer than the kept
 *   window is not filled beyond it).
 * - At most DENSITY_MAX_BUCKETS buckets are kept; older ones are dropped, so the file stays small.
 * - The file is replaced atomically (a temporary file renamed over it): a reader never sees half
 *   of it. It is written every FLUSH_INTERVAL_MS while something changed, and at stop.
 * - A series already in the file with the same bucket length is continued after a restart.
 * - Submissions are counted with the one rule of derive.ts (a new job run counts its replicas).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DENSITY_FILE, DENSITY_MAX_BUCKETS, type DensityBucket, type DensitySeries } from '../../api/metrics.js';
import type { ClusterStore } from '../../cluster/state/store.js';
import { EventDeriver } from './derive.js';

/** How often a changed series is written while the cluster runs. */
export const FLUSH_INTERVAL_MS = 10_000;

export interface DensityOptions {
  home: string;
  bucketMs: number;
  now?: () => number;
  maxBuckets?: number;
  log?: (message: string) => void;
}

export class DensityRecorder {
  readonly file: string;
  private readonly now: () => number;
  private readonly maxBuckets: number;
  private buckets: DensityBucket[] = [];
  private dirty = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly detach: () => void;

  constructor(
    private readonly store: ClusterStore,
    private readonly o: DensityOptions,
  ) {
    this.file = path.join(o.home, DENSITY_FILE);
    this.now = o.now ?? Date.now;
    this.maxBuckets = o.maxBuckets ?? DENSITY_MAX_BUCKETS;
    this.buckets = this.readExisting();
    const deriver = new EventDeriver(store.jobs(), store.activeAttempts());
    const onChange = (event: Parameters<EventDeriver['observe']>[0]) => {
      if (event.type === 'worker') return this.sample();
      const { submittedTasks } = deriver.observe(event);
      if (submittedTasks) {
        this.current().submissions += submittedTasks;
        this.dirty = true;
      }
    };
    store.events.on('change', onChange);
    this.detach = () => store.events.off('change', onChange);
    this.sample();
  }

  /** The series as it is now (the current bucket included). */
  series(): DensitySeries {
    this.sample();
    return {
      version: 1,
      bucketSeconds: this.o.bucketMs / 1000,
      updatedAt: this.now(),
      buckets: this.buckets.map((b) => ({ ...b })),
    };
  }

  /** Write periodically from now on. */
  start(): void {
    this.timer = setInterval(
      () => {
        this.sample();
        if (this.dirty) this.flush();
      },
      Math.min(FLUSH_INTERVAL_MS, this.o.bucketMs),
    );
    this.timer.unref();
  }

  /** Stop listening and write the series one last time. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.detach();
    this.flush();
  }

  /** Write the file now (errors are logged, never thrown: metrics must not stop the cluster). */
  flush(): void {
    const series = this.series();
    try {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(series) + '\n', { mode: 0o600 });
      renameSync(temp, this.file);
      this.dirty = false;
    } catch (error) {
      this.o.log?.(`metrics: could not write ${this.file}: ${(error as Error).message}`);
    }
  }

  /** Record the active worker count in the current bucket. */
  private sample(): void {
    const active = this.store.workers().filter((w) => w.state === 'READY').length;
    const bucket = this.current();
    if (bucket.activeWorkers !== active) this.dirty = true;
    bucket.activeWorkers = active;
  }

  /** The bucket of now, adding empty buckets up to it. */
  private current(): DensityBucket {
    const { bucketMs } = this.o;
    const start = Math.floor(this.now() / bucketMs) * bucketMs;
    let last = this.buckets.at(-1);
    if (last && last.start === start) return last;
    if (last && last.start > start) return last; // the clock went back: keep counting in the newest bucket
    const from = last ? Math.max(last.start + bucketMs, start - (this.maxBuckets - 1) * bucketMs) : start;
    const workers = last?.activeWorkers ?? 0;
    for (let t = from; t <= start; t += bucketMs)
      this.buckets.push({ start: t, submissions: 0, activeWorkers: workers });
    if (this.buckets.length > this.maxBuckets) this.buckets.splice(0, this.buckets.length - this.maxBuckets);
    this.dirty = true;
    last = this.buckets.at(-1)!;
    return last;
  }

  private readExisting(): DensityBucket[] {
    try {
      const old = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<DensitySeries>;
      if (old.version !== 1 || old.bucketSeconds !== this.o.bucketMs / 1000 || !Array.isArray(old.buckets)) return [];
      return old.buckets
        .filter(
          (b) => Number.isFinite(b?.start) && Number.isFinite(b?.submissions) && Number.isFinite(b?.activeWorkers),
        )
        .slice(-this.maxBuckets);
    } catch {
      return [];
    }
  }
}

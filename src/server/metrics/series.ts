/**
 * The metrics series the dashboard plots (GET /v1/metrics/series, docs/api.md): queue length and
 * use over the last hour, sampled in memory.
 *
 * Guarantees:
 * - A fixed ring: at most SERIES_MAX_SAMPLES samples (an hour at the default 10 s); the oldest is
 *   dropped when a new one comes. Memory is bounded by the ring, whatever the interval.
 * - Samples are oldest first, one per interval; the first is taken when the recorder starts (the
 *   cluster's start).
 * - The figures are the cluster's own (`iris cluster status`, ClusterInfo: the jobs by state, the
 *   live attempts, the workers' capacity and use); `seriesFigures` only adds up the workers.
 * - Sampling never throws: a failed read is logged and skipped.
 */
import { SERIES_MAX_SAMPLES, type MetricsSeries, type SeriesSample } from '../../api/metrics.js';
import type { ClusterInfo } from '../../api/types.js';

/** A ring of at most `capacity` items, oldest first. */
export class Ring<T> {
  private readonly items: T[] = [];
  /** Where the next item goes once the ring is full (the oldest item's slot). */
  private next = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity ${capacity}`);
  }

  push(item: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
  }

  get size(): number {
    return this.items.length;
  }

  /** The items, oldest first (a fresh array). */
  toArray(): T[] {
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}

/** One sample's figures from the cluster's view of itself. */
export function seriesFigures(info: ClusterInfo): Omit<SeriesSample, 'time'> {
  const memory = { used: 0, total: 0 };
  const accelerators = { used: 0, total: 0 };
  for (const w of info.workers) {
    memory.used += w.used.memoryBytes;
    memory.total += w.capacity.memoryBytes;
    accelerators.used += w.used.devices;
    accelerators.total += w.capacity.devices;
  }
  return {
    pendingJobs: info.queue.jobs.PENDING ?? 0,
    runningTasks: info.queue.running,
    cpu: { used: info.cpu.usedMillis / 1000, total: info.cpu.capacityMillis / 1000 },
    memoryBytes: memory,
    accelerators,
  };
}

export interface SeriesOptions {
  intervalMs: number;
  now?: () => number;
  capacity?: number;
  log?: (message: string) => void;
}

export class SeriesRecorder {
  private readonly ring: Ring<SeriesSample>;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly read: () => Omit<SeriesSample, 'time'>,
    private readonly o: SeriesOptions,
  ) {
    this.ring = new Ring(o.capacity ?? SERIES_MAX_SAMPLES);
    this.now = o.now ?? Date.now;
  }

  /** Take the first sample now, then one every interval. */
  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Take one sample (a failed read is logged, not thrown). */
  sample(): void {
    try {
      this.ring.push({ time: this.now(), ...this.read() });
    } catch (error) {
      this.o.log?.(`metrics: could not sample the series: ${(error as Error).message}`);
    }
  }

  series(): MetricsSeries {
    return { intervalMs: this.o.intervalMs, samples: this.ring.toArray() };
  }
}

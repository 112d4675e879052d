/**
 * The metrics file (docs/metrics.md, "metrics.json"): `<home>/metrics/metrics.json` holds the same
 * metric families, samples and values as GET /metrics, read from the one registry
 * (ClusterMetrics.families), whether or not a metrics port is open.
 *
 * Guarantees:
 * - The file is replaced atomically (a temporary file renamed over it): a reader never sees half
 *   of it.
 * - Writes are coalesced: after a change the metrics counted (a store event, a requeue, a pass)
 *   the file is written once, at most once per MIN_INTERVAL_MS (and per WRITE_SPACING times the
 *   last read of the metrics, which grows with the jobs held live) however many changes came, and
 *   never two writes at once. Values that move with time alone (energy) are refreshed at least
 *   every REFRESH_INTERVAL_MS while `movesWithTime()` says they do. Nothing is written while
 *   nothing changes.
 * - `stop()` writes the file one last time (after the cluster stopped its tasks) and resolves
 *   once it is on disk.
 * - A failed write is logged, never thrown: metrics must not stop the cluster.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { METRICS_FILE, type MetricsFileContent } from '../../api/metrics.js';
import type { ClusterMetrics } from './cluster-metrics.js';

/** The least time between two writes of the file. */
export const MIN_INTERVAL_MS = 1000;
/**
 * And no sooner than this many times the last read of the metrics took: reading them walks every
 * job held live, so with thousands pending the once-a-second write took ~17% of the controller
 * (issue 36); spaced by its own cost it takes at most a twentieth.
 */
export const WRITE_SPACING = 20;
/** The longest a file waits for a refresh while values move with time (energy). */
export const REFRESH_INTERVAL_MS = 10_000;

export interface MetricsFileOptions {
  home: string;
  now?: () => number;
  log?: (message: string) => void;
  /** True while some value grows with time alone (a worker draws power): refresh periodically. */
  movesWithTime?: () => boolean;
}

export class MetricsFileWriter {
  readonly file: string;
  private readonly now: () => number;
  private dirty = true;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private refresh: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private stopped = false;
  /** How long the last read of the metrics took (ms, the controller's thread: not the file's I/O). */
  private readMs = 0;
  /** Writes done (tests). */
  writes = 0;

  constructor(
    private readonly metrics: ClusterMetrics,
    private readonly o: MetricsFileOptions,
  ) {
    this.file = path.join(o.home, METRICS_FILE);
    this.now = o.now ?? Date.now;
    metrics.onChange(() => this.changed());
  }

  /** Write now and from now on after changes. */
  start(): void {
    this.schedule();
    if (this.o.movesWithTime) {
      this.refresh = setInterval(() => {
        if (this.o.movesWithTime!() && this.now() - this.lastWrite >= REFRESH_INTERVAL_MS) this.changed();
      }, REFRESH_INTERVAL_MS);
      this.refresh.unref();
    }
  }

  /** Stop writing after changes and write the file one last time. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.refresh) clearInterval(this.refresh);
    this.timer = this.refresh = null;
    await this.writing;
    await this.write();
  }

  private changed(): void {
    this.dirty = true;
    this.schedule();
  }

  /** One write at the earliest moment MIN_INTERVAL_MS allows, unless one is already planned. */
  private schedule(): void {
    if (this.stopped || this.timer !== null || this.writing !== null || !this.dirty) return;
    const wait = Math.max(0, this.lastWrite + Math.max(MIN_INTERVAL_MS, WRITE_SPACING * this.readMs) - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.writing = this.write().finally(() => {
        this.writing = null;
        this.schedule();
      });
    }, wait);
    this.timer.unref();
  }

  /** Read the metrics and replace the file. */
  private async write(): Promise<void> {
    this.dirty = false;
    this.lastWrite = this.now();
    try {
      const read = performance.now();
      const families = await this.metrics.families();
      this.readMs = performance.now() - read;
      const content: MetricsFileContent = {
        version: 2,
        updatedAt: new Date(this.now()).toISOString(),
        metrics: families,
      };
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(content) + '\n', { mode: 0o600 });
      await rename(temp, this.file);
      this.writes++;
    } catch (error) {
      this.o.log?.(`metrics: could not write ${this.file}: ${(error as Error).message}`);
    }
  }
}

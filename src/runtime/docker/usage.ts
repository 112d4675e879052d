/**
 * What a container used, sampled while it runs: the engine forgets a container's counters when
 * it exits, so UsageSampler asks for one-shot stats (`GET /containers/ID/stats?stream=false&one-shot=true`)
 * when the container starts, every `periodMs` after that, and when iris is about to stop it.
 * Cost: one stats request per running container per period (the engine reads the container's
 * cgroup files for each); requests never overlap for one container.
 *
 * Guarantees:
 * - CPU seconds are the largest cumulative `cpu_stats.cpu_usage.total_usage` seen (ns); peak
 *   memory is the largest `memory_stats.max_usage` seen (a cgroup v1 engine: the kernel's own
 *   peak since start), else the largest `memory_stats.usage` seen (cgroup v2 engines report no
 *   peak: a lower bound of it). Work after the last sample is not counted.
 * - A container that ended before any useful sample reports nothing (undefined), and memory
 *   that no sample reported is null, never a made-up 0. Samples of a stopped container (zeros)
 *   and failed requests are ignored.
 */
import type Docker from 'dockerode';
import type { TaskUsage } from '../types.js';

interface StatsAnswer {
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: { usage?: number; max_usage?: number };
}

const positive = (n: unknown): number | null => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : null);

export class UsageSampler {
  private cpuNs: number | null = null;
  private peakBytes: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly container: Docker.Container,
    private readonly periodMs: number,
  ) {}

  /** Takes a first sample now and one every period until stop(). */
  start(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), Math.max(50, this.periodMs));
    this.timer.unref();
  }

  /** One sample now (skipped while one is in flight, which is then awaited instead). */
  sample(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.inFlight ??= (async () => {
      try {
        const stats: StatsAnswer = await this.container.stats({ stream: false, 'one-shot': true });
        this.take(stats);
      } catch {
        // gone or the engine is busy: the samples already taken stand
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  /** Folds one stats answer into the maxima. */
  take(stats: StatsAnswer): void {
    const cpu = positive(stats.cpu_stats?.cpu_usage?.total_usage);
    if (cpu !== null) this.cpuNs = Math.max(this.cpuNs ?? 0, cpu);
    const memory = positive(stats.memory_stats?.max_usage) ?? positive(stats.memory_stats?.usage);
    if (memory !== null) this.peakBytes = Math.max(this.peakBytes ?? 0, memory);
  }

  /** A last sample before iris signals the container, waiting at most `waitMs` for it. */
  async final(waitMs = 500): Promise<void> {
    await within(this.sample(), waitMs);
  }

  /** Stops sampling (waiting at most `waitMs` for a request in flight) and returns what was seen. */
  async stop(waitMs = 1000): Promise<TaskUsage | undefined> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.inFlight) await within(this.inFlight, waitMs);
    this.stopped = true;
    return this.usage();
  }

  /** What the samples saw; undefined until one reported CPU. */
  usage(): TaskUsage | undefined {
    if (this.cpuNs === null) return undefined;
    return { cpuSeconds: this.cpuNs / 1e9, peakMemoryBytes: this.peakBytes };
  }
}

async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

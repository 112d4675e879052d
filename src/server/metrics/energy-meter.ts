/**
 * The live cluster's energy meter (docs/metrics.md, "Energy"): integrates each worker's draw
 * (model/energy.ts) over wall time from the cluster's start, for `iris_energy_joules_total`.
 *
 * Guarantees:
 * - A worker's draw is constant between store changes that touch it (an attempt placed on it or
 *   ended there, a change of the worker: its state or its `power-watts`); at each such change the
 *   time since the last one is charged at the old draw, then the draw is recomputed. A read
 *   charges up to now without changing the draw. So the figures are exact for the model, and the
 *   work per change is constant (no scan of the live attempts).
 * - Only workers with `power-watts` are metered; a DISABLED or DRAINED worker draws nothing, so
 *   its total stays where it was meanwhile, and the cluster-wide total (the sum) leaves it out.
 * - Totals only grow (counters); they start at 0 when the cluster starts.
 */
import type { ClusterStore } from '../../cluster/state/store.js';
import type { StoreEvent } from '../../cluster/state/events.js';
import { drawsPower, heldBy, NOTHING_HELD, useShare, wattsAt, type Held } from '../../model/energy.js';
import { isMergedMember, type Attempt, type Worker } from '../../model/types.js';

interface Meter {
  worker: Worker;
  held: Held;
  joules: number;
  watts: number;
  since: number;
}

const attemptKey = (a: Pick<Attempt, 'task' | 'attempt'>): string => `${a.task}#${a.attempt}`;

export class EnergyMeter {
  private readonly meters = new Map<string, Meter>();
  /** Live attempts counted: key -> worker and what it holds. */
  private readonly live = new Map<string, { workerId: string; held: Held }>();
  private readonly detach: () => void;

  constructor(
    private readonly store: ClusterStore,
    private readonly now: () => number = Date.now,
  ) {
    const at = now();
    for (const worker of store.workers()) this.meters.set(worker.id, this.fresh(worker, at));
    for (const attempt of store.activeAttempts()) this.attempt(attempt, at);
    for (const meter of this.meters.values()) this.redraw(meter);
    const onChange = (event: StoreEvent) => {
      if (event.type === 'attempt') this.attempt(event.attempt, this.now());
      else if (event.type === 'worker') this.worker(event.worker, this.now());
    };
    store.events.on('change', onChange);
    this.detach = () => store.events.off('change', onChange);
  }

  /** Joules per metered worker (those with `power-watts`), up to now. */
  totals(): Map<string, number> {
    const at = this.now();
    const out = new Map<string, number>();
    for (const [id, meter] of this.meters) {
      if (!meter.worker.powerWatts) continue;
      this.charge(meter, at);
      out.set(id, meter.joules);
    }
    return out;
  }

  /** What the metered workers draw now, in watts (disabled ones draw nothing). */
  watts(): number {
    let sum = 0;
    for (const meter of this.meters.values()) sum += meter.watts;
    return sum;
  }

  /** True while some worker draws power (the totals grow with time alone). */
  drawing(): boolean {
    for (const meter of this.meters.values()) if (meter.watts > 0) return true;
    return false;
  }

  close(): void {
    this.detach();
  }

  private fresh(worker: Worker, at: number): Meter {
    return { worker, held: { cpuMillis: 0, devices: 0 }, joules: 0, watts: 0, since: at };
  }

  private attempt(attempt: Attempt, at: number): void {
    const key = attemptKey(attempt);
    const known = this.live.get(key);
    if (attempt.finishedAt === null) {
      if (known) return;
      // A merged batch's member runs in its lead's process and holds nothing of its own.
      const spec = isMergedMember(attempt) ? undefined : this.store.job(this.store.task(attempt.task)?.job ?? '')?.spec;
      const held = spec ? heldBy(spec.resources) : NOTHING_HELD;
      this.live.set(key, { workerId: attempt.workerId, held });
      this.change(attempt.workerId, at, (m) => {
        m.held = { cpuMillis: m.held.cpuMillis + held.cpuMillis, devices: m.held.devices + held.devices };
      });
    } else if (known) {
      this.live.delete(key);
      this.change(known.workerId, at, (m) => {
        m.held = {
          cpuMillis: Math.max(0, m.held.cpuMillis - known.held.cpuMillis),
          devices: Math.max(0, m.held.devices - known.held.devices),
        };
      });
    }
  }

  private worker(worker: Worker, at: number): void {
    const meter = this.meters.get(worker.id);
    if (!meter) {
      this.meters.set(worker.id, this.fresh(worker, at));
      this.redraw(this.meters.get(worker.id)!);
      return;
    }
    this.change(worker.id, at, (m) => (m.worker = worker));
  }

  /** Charge a worker up to `at` at its old draw, apply `edit`, and recompute its draw. */
  private change(workerId: string, at: number, edit: (meter: Meter) => void): void {
    const meter = this.meters.get(workerId);
    if (!meter) return;
    this.charge(meter, at);
    edit(meter);
    this.redraw(meter);
  }

  private charge(meter: Meter, at: number): void {
    if (at > meter.since) meter.joules += (meter.watts * (at - meter.since)) / 1000;
    meter.since = Math.max(meter.since, at);
  }

  private redraw(meter: Meter): void {
    const power = meter.worker.powerWatts;
    meter.watts = power && drawsPower(meter.worker.state) ? wattsAt(power, useShare(meter.worker, meter.held)) : 0;
  }
}

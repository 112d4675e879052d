/**
 * The elastic coordinator in the simulator (`iris simulate --elastic`, docs/simulate.md): the live
 * cluster's pure decision (cluster/scheduler/elastic.ts, `decideElastic`) polled on the virtual
 * clock, with what the live loop (cluster/controller/elastic.ts) tracks: when each worker last
 * ended a task (or was enabled), when it was last toggled, and whether a task runs on it.
 *
 * Guarantees: the decision is the live one, fed the same inputs (ready queue = pending tasks);
 * times are seconds here and milliseconds for the decision; a disabled worker takes no
 * placements (its view is not schedulable) and its disabled time is summed for the report
 * (worker-hours disabled). Polls run every `poll` from the first event while other events remain
 * or the last poll toggled a worker, so a run always ends.
 */
import { costPerHourOf } from '../model/types.js';
import { DEFAULT_ELASTIC, decideElastic, type ElasticWorker } from '../cluster/scheduler/elastic.js';
import type { WorkerPool } from './pool.js';
import type { SimWorker } from './workload.js';

/** The coordinator's settings in seconds (config `elastic:` keys, same defaults). */
export interface SimElasticSettings {
  idleDisable: number;
  queueMax: number;
  enableThreshold: number;
  minActive: number;
  poll: number;
  cooldown: number;
}

export const DEFAULT_SIM_ELASTIC: Readonly<SimElasticSettings> = Object.freeze({
  idleDisable: DEFAULT_ELASTIC.idleDisableMs / 1000,
  queueMax: DEFAULT_ELASTIC.queueMax,
  enableThreshold: DEFAULT_ELASTIC.enableThreshold,
  minActive: DEFAULT_ELASTIC.minActive,
  poll: DEFAULT_ELASTIC.pollMs / 1000,
  cooldown: DEFAULT_ELASTIC.cooldownMs / 1000,
});

interface WorkerTrack {
  id: string;
  costPerHour: number;
  running: number;
  idleSince: number;
  lastToggleAt: number | null;
  /** Since when it is disabled; null while enabled. */
  disabledAt: number | null;
}

export interface ElasticChanges {
  disabled: Array<{ workerId: string; reason: string }>;
  enabled: string[];
}

export class SimElastic {
  private readonly workers: WorkerTrack[];
  private readonly index = new Map<string, WorkerTrack>();
  private next: number | null = null;
  private toggledLast = false;
  private disabledSeconds = 0;
  /** Σ seconds disabled × cost per hour, of the disable periods that ended. */
  private disabledCostSeconds = 0;

  constructor(
    workers: readonly SimWorker[],
    private readonly settings: SimElasticSettings,
  ) {
    this.workers = workers.map((w) => ({
      id: w.id,
      costPerHour: costPerHourOf(w),
      running: 0,
      idleSince: 0,
      lastToggleAt: null,
      disabledAt: null,
    }));
    for (const w of this.workers) this.index.set(w.id, w);
  }

  /**
   * The next poll time; null: no more polls. Polls go on while the workload has other events, the
   * last poll toggled a worker, or queued tasks (more than enable-threshold) wait for a disabled worker.
   */
  nextPoll(otherEvents: boolean, queueLength: number): number | null {
    if (this.next === null) return null;
    const waiting = queueLength > this.settings.enableThreshold && this.workers.some((w) => w.disabledAt !== null);
    return otherEvents || this.toggledLast || waiting ? this.next : null;
  }

  /** The first event happened at `now`: workers count as idle from then; the first poll is one interval later. */
  begin(now: number): void {
    if (this.next !== null) return;
    for (const w of this.workers) w.idleSince = now;
    this.next = now + this.settings.poll;
  }

  taskStarted(workerId: string): void {
    this.index.get(workerId)!.running++;
  }

  taskEnded(workerId: string, now: number): void {
    const w = this.index.get(workerId)!;
    w.running--;
    w.idleSince = Math.max(w.idleSince, now);
  }

  /**
   * One poll at `now` with `queueLength` pending tasks, applied to `pool`; true when a worker was enabled (a resource
   * change).
   */
  poll(now: number, queueLength: number, pool: WorkerPool): boolean {
    const changes = this.decide(now, queueLength);
    for (const d of changes.disabled) pool.setDisabled(d.workerId, d.reason);
    for (const id of changes.enabled) pool.setDisabled(id, null);
    return changes.enabled.length > 0;
  }

  private decide(now: number, queueLength: number): ElasticChanges {
    this.next = now + this.settings.poll;
    const s = this.settings;
    const view: ElasticWorker[] = this.workers.map((w) => ({
      id: w.id,
      state: w.disabledAt !== null ? 'DISABLED' : 'READY',
      disabledBy: w.disabledAt !== null ? 'elastic' : null,
      busy: w.running > 0,
      idleSince: w.idleSince * 1000,
      lastToggleAt: w.lastToggleAt === null ? null : w.lastToggleAt * 1000,
      costPerHour: w.costPerHour,
    }));
    const actions = decideElastic({
      workers: view,
      queueLength,
      now: now * 1000,
      settings: {
        idleDisableMs: s.idleDisable * 1000,
        queueMax: s.queueMax,
        enableThreshold: s.enableThreshold,
        minActive: s.minActive,
        cooldownMs: s.cooldown * 1000,
      },
    });
    const out: ElasticChanges = { disabled: [], enabled: [] };
    for (const action of actions) {
      const w = this.index.get(action.workerId)!;
      w.lastToggleAt = now;
      if (action.kind === 'disable') {
        w.disabledAt = now;
        out.disabled.push({ workerId: w.id, reason: `elastic: ${action.reason}` });
      } else {
        this.disabledSeconds += now - w.disabledAt!;
        this.disabledCostSeconds += (now - w.disabledAt!) * w.costPerHour;
        w.disabledAt = null;
        // Becoming READY starts its idle time afresh, as in the live loop.
        w.idleSince = now;
        out.enabled.push(w.id);
      }
    }
    this.toggledLast = actions.length > 0;
    return out;
  }

  /** Worker-hours spent disabled up to `end` (workers still disabled count until then). */
  disabledWorkerHours(end: number): number {
    let seconds = this.disabledSeconds;
    for (const w of this.workers) if (w.disabledAt !== null) seconds += Math.max(0, end - w.disabledAt);
    return seconds / 3600;
  }

  /** What the disabled time up to `end` would have cost: Σ hours disabled × the worker's cost per hour. */
  disabledCost(end: number): number {
    let costSeconds = this.disabledCostSeconds;
    for (const w of this.workers)
      if (w.disabledAt !== null) costSeconds += Math.max(0, end - w.disabledAt) * w.costPerHour;
    return costSeconds / 3600;
  }
}

/**
 * The elastic coordinator's decision (docs/configuration.md, "Elastic workers"): a pure function
 * of the workers, the ready-queue length, the settings and the time. The loop that feeds it and
 * applies its answer is controller/elastic.ts.
 *
 * Rules, per poll:
 * - Re-enable: when the ready queue is longer than `enable-threshold`, every worker the
 *   coordinator disabled itself is enabled again (one disabled by the user never is), except
 *   those toggled within `cooldown`. A poll that re-enables disables nothing.
 * - Disable: otherwise, when the ready queue is at most `queue-max`, a READY worker with no live
 *   attempt for at least `idle-disable`, not toggled within `cooldown`, is disabled, as long as
 *   more than `min-active` workers stay READY. The most expensive go first (cost per hour), then
 *   the longest idle, then by id.
 * - Workers that are draining or drained are left alone and do not count as active.
 * Same input, same answer.
 */
import { formatDuration } from '../../model/duration.js';
import type { DisabledBy, WorkerState } from '../../model/types.js';

export interface ElasticSettings {
  /** How long a worker must have had no live attempt before it is disabled. */
  idleDisableMs: number;
  /** Disable only while the ready queue holds at most this many tasks. */
  queueMax: number;
  /** Re-enable while the ready queue holds more than this many tasks. */
  enableThreshold: number;
  /** At least this many workers stay enabled (READY). */
  minActive: number;
  /** The same worker is not toggled again within this time. */
  cooldownMs: number;
}

export const DEFAULT_ELASTIC: ElasticSettings & { pollMs: number } = {
  idleDisableMs: 60_000,
  queueMax: 0,
  enableThreshold: 0,
  minActive: 1,
  cooldownMs: 60_000,
  pollMs: 30_000,
};

export interface ElasticWorker {
  id: string;
  state: WorkerState;
  /** Who disabled it (DISABLED only). */
  disabledBy: DisabledBy | null;
  /** It runs a live attempt now. */
  busy: boolean;
  /** Since when it has had no live attempt (ignored while busy). */
  idleSince: number;
  /** The last time it was disabled or enabled (by anyone), or null. */
  lastToggleAt: number | null;
  costPerHour: number;
}

export interface ElasticInput {
  workers: readonly ElasticWorker[];
  /** Tasks in the ready queue: pending and not waiting on dependencies. */
  queueLength: number;
  now: number;
  settings: ElasticSettings;
}

export type ElasticAction =
  | { kind: 'disable'; workerId: string; reason: string; why: string }
  | { kind: 'enable'; workerId: string; why: string };

export function decideElastic(input: ElasticInput): ElasticAction[] {
  const { workers, queueLength: queue, now, settings: s } = input;
  const cooling = (w: ElasticWorker) => w.lastToggleAt !== null && now - w.lastToggleAt < s.cooldownMs;
  if (queue > s.enableThreshold) {
    return workers
      .filter((w) => w.state === 'DISABLED' && w.disabledBy === 'elastic' && !cooling(w))
      .map((w) => ({ kind: 'enable', workerId: w.id, why: `queue ${queue} > enable-threshold ${s.enableThreshold}` }));
  }
  if (queue > s.queueMax) return [];
  let active = workers.filter((w) => w.state === 'READY').length;
  const idle = workers
    .filter((w) => w.state === 'READY' && !w.busy && now - w.idleSince >= s.idleDisableMs && !cooling(w))
    .sort(
      (a, b) => b.costPerHour - a.costPerHour || a.idleSince - b.idleSince || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  const out: ElasticAction[] = [];
  const reason = `idle ${formatDuration(s.idleDisableMs)}`;
  for (const w of idle) {
    if (active <= s.minActive) break;
    active--;
    const idleFor = formatDuration(now - w.idleSince, { style: 'short' });
    out.push({
      kind: 'disable',
      workerId: w.id,
      reason,
      why: `idle for ${idleFor}, queue ${queue} <= queue-max ${s.queueMax}`,
    });
  }
  return out;
}

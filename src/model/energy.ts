/**
 * The energy rule (docs/metrics.md, "Energy"): what a worker with `power-watts` draws, and what an
 * attempt's share of it is. The live cluster's meter (server/metrics/energy-meter.ts) and
 * `iris history`'s estimate (server/runs.ts) both use these and nothing else.
 *
 * Guarantees:
 * - A worker draws power while it can run work: READY, or DRAINING (its tasks still run). A
 *   DISABLED worker counts as switched off (as it costs nothing, types.ts enabledCostPerHour), so
 *   it adds nothing to energy figures; so does a DRAINED one (out of service, or gone from the
 *   config: worker-sync.ts drains removed workers).
 * - Its draw is linear in its use share: `idle` watts with nothing running, `busy` watts fully
 *   used, `idle + (busy − idle) × share` between. The share is what its live attempts hold of it:
 *   the larger of their CPU share and their accelerator share, at most 1.
 * - An attempt is charged `busy × share × seconds`, its share being what it holds of its worker:
 *   the full draw of the part of the worker it holds. The attempts of a worker are never charged
 *   more than the worker drew (the rest is its idle overhead).
 * - A worker without `power-watts` draws nothing and its attempts are charged nothing.
 */
import type { ResourceSpec, WorkerDevice } from './resources.js';
import type { PowerWatts, WorkerState } from './types.js';

export type { PowerWatts };

/** What a worker's live attempts hold of it (or one attempt holds). */
export interface Held {
  cpuMillis: number;
  devices: number;
}

export const NOTHING_HELD: Held = { cpuMillis: 0, devices: 0 };

/** Whether a worker in `state` draws power: READY or DRAINING, never DISABLED or DRAINED. */
export const drawsPower = (state: WorkerState): boolean => state === 'READY' || state === 'DRAINING';

/** What an attempt of a job with `resources` holds: its CPU and its devices (GPUs or TPU chips). */
export function heldBy(resources: ResourceSpec): Held {
  const d = resources.device;
  return { cpuMillis: resources.cpuMillis, devices: d === null ? 0 : d.type === 'gpu' ? d.count : d.chips };
}

/** The share of `worker` that `held` uses: the larger of its CPU and device shares, in [0, 1]. */
export function useShare(worker: { cpuMillis: number; device: WorkerDevice }, held: Held): number {
  const cpu = worker.cpuMillis > 0 ? held.cpuMillis / worker.cpuMillis : 0;
  const devices = worker.device.count > 0 ? held.devices / worker.device.count : 0;
  return Math.min(1, Math.max(0, cpu, devices));
}

/** A worker's draw at a use share, in watts. */
export const wattsAt = (power: PowerWatts, share: number): number =>
  power.idle + (power.busy - power.idle) * Math.min(1, Math.max(0, share));

/** What an attempt holding `share` of its worker for `seconds` is charged, in joules. */
export const attemptJoules = (power: PowerWatts, share: number, seconds: number): number =>
  power.busy * Math.min(1, Math.max(0, share)) * Math.max(0, seconds);

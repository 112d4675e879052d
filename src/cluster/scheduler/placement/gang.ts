/**
 * Gangs (docs/architecture.md, "Placement"): all pending tasks of a coscheduled job are placed at
 * once on distinct workers that share one value of the job's `coschedule` attribute, or none
 * are. Within a group, workers are ordered by numeric `tpu-worker-id` (workers without one
 * follow, by id). In a group of TPU hosts (`hostOrdered`) the gang's k-th task (by index) goes
 * to exactly the k-th host (task i = tpu-worker-id i, what TPU_WORKER_ID and the JAX process id
 * say): a busy host k makes the gang wait or go to another group, never to host k+1. In other
 * groups it goes to the k-th eligible worker. This is the one rule (`pickMembers`) for every
 * queue policy: first-fit's pass (GangPlacer), the planner's starts and reservations
 * (queue/allocate.ts, planner/job.ts through WorkerSlot.host). Members are chosen tentatively
 * and committed only when every member has a worker; under first-fit a worker given to one gang
 * is never given to another gang in the same pass.
 */
import type { CandidateIndex } from './candidates.js';
import type { ScratchCapacity } from './scratch.js';
import type { SchedulerJob, WorkerView } from '../types.js';

export const TPU_WORKER_ID = 'tpu-worker-id';

function numericWorkerId(worker: WorkerView): number | null {
  const raw = worker.attributes[TPU_WORKER_ID];
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/** Order of workers inside one group: numeric tpu-worker-id first, then worker id. */
export function compareGroupWorkers(a: WorkerView, b: WorkerView): number {
  const ia = numericWorkerId(a);
  const ib = numericWorkerId(b);
  if (ia !== null && ib !== null && ia !== ib) return ia - ib;
  if (ia !== null && ib === null) return -1;
  if (ia === null && ib !== null) return 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface WorkerGroup {
  value: string;
  /** Worker indices in group order. */
  members: number[];
  /** The first member carries a numeric `tpu-worker-id`: task k runs on members[k] and nowhere else. */
  hostOrdered: boolean;
}

/**
 * The members of `group` that run a gang of `count` tasks (task k on the k-th returned), or null:
 * in a host-ordered group exactly members 0..count-1, all `eligible`; in another group the first
 * `count` eligible members in group order.
 */
export function pickMembers(group: WorkerGroup, count: number, eligible: (w: number) => boolean): number[] | null {
  const { members } = group;
  if (count <= 0 || members.length < count) return null;
  if (group.hostOrdered) {
    for (let k = 0; k < count; k++) if (!eligible(members[k]!)) return null;
    return members.slice(0, count);
  }
  const picked: number[] = [];
  for (const w of members) {
    if (eligible(w) && picked.push(w) === count) return picked;
  }
  return null;
}

/** Workers having `attribute`, grouped by its value; groups sorted by value. */
export function groupWorkers(workers: readonly WorkerView[], attribute: string): WorkerGroup[] {
  const byValue = new Map<string, number[]>();
  for (let w = 0; w < workers.length; w++) {
    const value = workers[w]!.attributes[attribute];
    if (value === undefined) continue;
    let list = byValue.get(value);
    if (!list) byValue.set(value, (list = []));
    list.push(w);
  }
  const groups: WorkerGroup[] = [];
  for (const [value, members] of byValue) {
    members.sort((x, y) => compareGroupWorkers(workers[x]!, workers[y]!));
    groups.push({ value, members, hostOrdered: numericWorkerId(workers[members[0]!]!) !== null });
  }
  groups.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return groups;
}

export class GangPlacer {
  private readonly groupsByAttribute = new Map<string, WorkerGroup[]>();

  constructor(
    private readonly scratch: ScratchCapacity,
    private readonly candidates: CandidateIndex,
  ) {}

  groups(attribute: string): WorkerGroup[] {
    let groups = this.groupsByAttribute.get(attribute);
    if (!groups) this.groupsByAttribute.set(attribute, (groups = groupWorkers(this.scratch.workers, attribute)));
    return groups;
  }

  /**
   * Choose `count` workers for a gang of `job` in the first group (by value) that has them.
   * In a group of TPU hosts (members carry `tpu-worker-id`) the gang's k-th task must run on
   * the group's k-th host, so members 0..count-1 must all be eligible: task i is TPU worker i.
   * Other groups take their first `count` eligible workers in group order. Pure choice on the
   * scratch view; nothing is consumed.
   */
  choose(job: SchedulerJob, attribute: string, count: number): number[] | null {
    if (count <= 0) return null;
    const { isMember } = this.candidates.of(job);
    const res = job.resources;
    const scratch = this.scratch;
    const eligible = (w: number): boolean => !!isMember[w] && !scratch.gangTaken[w] && scratch.fits(w, res);
    for (const group of this.groups(attribute)) {
      const picked = pickMembers(group, count, eligible);
      if (picked) return picked;
    }
    return null;
  }

  /** Commit a chosen gang: consume capacity and mark the workers taken. Returns device indices per member. */
  commit(job: SchedulerJob, chosen: readonly number[]): number[][] {
    return chosen.map((w) => {
      this.scratch.gangTaken[w] = 1;
      return this.scratch.consume(w, job.resources);
    });
  }
}

/**
 * The worker lifecycle, decided (changes.ts; docs/cli.md, "Disabling workers" and "Draining"):
 * READY takes work; DISABLED takes no new placements while its running tasks go on;
 * DRAINING/DRAINED: its live attempts were preempted (requeued while their budget allows). Pure.
 *
 * - Disabling a disabled worker again changes nothing, except that a user's disable replaces the
 *   coordinator's (so the coordinator no longer re-enables it). A draining or drained worker
 *   cannot be disabled or enabled (conflict): it is put back with resume.
 * - Enabling: a DISABLED worker becomes READY; `onlyBy`: only when that party disabled it (the
 *   elastic coordinator re-enables only what it disabled itself). A READY one is left as it is.
 * - A worker that left the cluster (Worker.left: no longer in the config, or its node deleted)
 *   takes no new work: DRAINING while attempts still run there (they go on), DRAINED — gone from
 *   every live view — once the last one ended (leaveWorker, leftWorkerIdle). Disable, enable and
 *   resume refuse it (conflict) saying it left and how it comes back (leftRefusal); drain stops
 *   what still runs there. Named again, it comes back READY (cluster/state/worker-sync.ts).
 * - An empty list of items: nothing changed.
 */
import { conflict, notFound, type IrisError } from '../../model/errors.js';
import type { DisabledBy, Worker, WorkerLeft } from '../../model/types.js';
import { stopAsPreempted } from './attempts.js';
import { NO_ITEMS, type Item, type LifecycleView, type Decision, type StepDecider } from './changes.js';

function workerOrThrow(view: LifecycleView, id: string): Worker {
  const w = view.worker(id);
  if (!w) throw notFound(`worker ${id} not found`);
  return w;
}

/** The refusal of a change to a worker that left the cluster: that it left, and how it comes back. */
export function leftRefusal(w: Pick<Worker, 'id' | 'left'>): IrisError {
  if (w.left?.by === 'node') {
    return conflict(
      `worker ${w.id} has left the cluster: its Kubernetes node was deleted`,
      'it comes back by itself, READY, when a node of that name joins the cluster again',
    );
  }
  return conflict(
    `worker ${w.id} has left the cluster: it is no longer in the cluster's configuration`,
    'to bring it back, declare it again under `workers:` (or `slices:`) in the config file and restart the ' +
      'cluster (`iris cluster stop`, then `iris cluster start`); it comes back READY',
  );
}

/** The history reason of a worker leaving the cluster. */
export const leftReason = (left: WorkerLeft): string =>
  left.by === 'node' ? 'left the cluster: its node was deleted' : 'left the cluster: no longer in the configuration';

/**
 * `w` as it is once it left the cluster (kept when it had left already): DRAINING while `busy`
 * (attempts still run there and go on), else DRAINED; never disabled.
 */
export function leaveWorker(w: Worker, busy: boolean, by: WorkerLeft['by'], now: number): Worker {
  return { ...w, state: busy ? 'DRAINING' : 'DRAINED', disabled: null, left: w.left ?? { by, at: now } };
}

/** A `left-worker-idle` step: a worker that left is DRAINED (gone) once no attempt runs there any more. */
export const leftWorkerIdle: StepDecider<'left-worker-idle'> = (view, step) => {
  const w = view.worker(step.worker);
  if (!w?.left || w.state !== 'DRAINING') return NO_ITEMS;
  for (const a of view.liveAttempts()) if (a.workerId === w.id && a.finishedAt === null) return NO_ITEMS;
  return [{ kind: 'worker', worker: { ...w, state: 'DRAINED' } }];
};

/** Drain: DRAINING, each live attempt there preempted in turn, then DRAINED. */
export function drainWorker(view: LifecycleView, id: string): Decision {
  const w = workerOrThrow(view, id);
  if (w.left && w.state === 'DRAINED') throw leftRefusal(w);
  if (w.state === 'DRAINED') return NO_ITEMS;
  const draining: Worker = { ...w, state: 'DRAINING', disabled: null };
  const out: Item[] = [{ kind: 'worker', worker: draining }];
  const reason = `worker ${id} drained`;
  for (const a of view.liveAttempts()) if (a.workerId === id) out.push({ kind: 'drain-attempt', attempt: a, reason });
  out.push({ kind: 'worker', worker: { ...draining, state: 'DRAINED' } });
  return out;
}

/** A `drain-attempt` step, when its turn comes: nothing when the attempt already ended (restarted with its gang). */
export const drainAttempt: StepDecider<'drain-attempt'> = (view, step, now) => {
  const { attempt: a, reason } = step;
  if (view.liveAttempt(a.task) !== a) return NO_ITEMS;
  return stopAsPreempted(view, a, view.task(a.task)!, reason, now);
};

/** Disable a worker (see the header); nothing when it changes nothing. */
export function disableWorker(view: LifecycleView, id: string, by: DisabledBy, reason: string, now: number): Decision {
  const w = workerOrThrow(view, id);
  if (w.left) throw leftRefusal(w);
  if (w.state === 'DRAINING' || w.state === 'DRAINED') {
    throw conflict(
      `worker ${id} is ${w.state}; a drained worker takes no work already`,
      'resume it first with `iris workers resume`',
    );
  }
  if (w.state === 'DISABLED' && (w.disabled?.by === 'user' || by === 'elastic')) return NO_ITEMS;
  return [{ kind: 'worker', worker: { ...w, state: 'DISABLED', disabled: { by, reason, disabledAt: now } } }];
}

/** Enable a DISABLED worker (see the header); nothing when it changes nothing. */
export function enableWorker(view: LifecycleView, id: string, onlyBy?: DisabledBy): Decision {
  const w = workerOrThrow(view, id);
  if (w.left) throw leftRefusal(w);
  if (w.state === 'DRAINING' || w.state === 'DRAINED') {
    throw conflict(
      `worker ${id} is ${w.state}, not disabled`,
      'a drained worker is put back with `iris workers resume`',
    );
  }
  if (w.state !== 'DISABLED') return NO_ITEMS;
  if (onlyBy !== undefined && w.disabled?.by !== onlyBy) return NO_ITEMS;
  return [{ kind: 'worker', worker: { ...w, state: 'READY', disabled: null } }];
}

/** Undrain: a DRAINED worker becomes READY and takes work again; any other state is a conflict. */
export function resumeWorker(view: LifecycleView, id: string): Decision {
  const w = workerOrThrow(view, id);
  if (w.left) throw leftRefusal(w);
  if (w.state !== 'DRAINED')
    throw conflict(
      `worker ${id} is not drained (it is ${w.state})`,
      'only a drained worker can be resumed; see `iris workers`',
    );
  return [{ kind: 'worker', worker: { ...w, state: 'READY' } }];
}

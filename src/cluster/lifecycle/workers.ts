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
 * - An empty list of items: nothing changed.
 */
import { conflict, notFound } from '../../model/errors.js';
import type { DisabledBy, Worker } from '../../model/types.js';
import { stopAsPreempted } from './attempts.js';
import { NO_ITEMS, type Item, type LifecycleView, type Decision, type StepDecider } from './changes.js';

function workerOrThrow(view: LifecycleView, id: string): Worker {
  const w = view.worker(id);
  if (!w) throw notFound(`worker ${id} not found`);
  return w;
}

/** Drain: DRAINING, each live attempt there preempted in turn, then DRAINED. */
export function drainWorker(view: LifecycleView, id: string): Decision {
  const w = workerOrThrow(view, id);
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
  if (w.state !== 'DRAINED')
    throw conflict(
      `worker ${id} is not drained (it is ${w.state})`,
      'only a drained worker can be resumed; see `iris workers`',
    );
  return [{ kind: 'worker', worker: { ...w, state: 'READY' } }];
}

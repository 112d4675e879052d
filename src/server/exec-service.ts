/**
 * `iris exec` on the controller's side (docs/cli.md, "iris exec"): which attempt a command may
 * run in, the record of it, and the start through the controller's runtime. The route checked
 * the caller's scope already (a task only within its own job's subtree; the owner anywhere).
 *
 * Guarantees:
 * - A command runs only in a RUNNING attempt of a job that has not ended, on a worker that is
 *   still there: every other case is not_found (exit 3) naming the state (`/t/task-0 is PENDING,
 *   not running (requeued after preemption: node w1 gone)`), the ended job, the ended attempt or
 *   the gone worker, with a hint.
 * - Every exec is recorded on the task before it starts (an `exec` history row: who, when, the
 *   command, with a terminal or not), and `iris status JOB` lists them; the record is the API's
 *   answer too (ExecEvent).
 */
import { type IrisError, notFound } from '../model/errors.js';
import { isFinalJobState } from '../model/states.js';
import type { TaskCaller } from '../model/caller.js';
import type { ClusterStore, ExecRecord } from '../cluster/state/store.js';
import type { ExecSession, ExecSpec } from '../runtime/types.js';
import type { ExecEvent, ExecRequest } from '../api/types.js';
import type { Job, Task, Worker } from '../model/types.js';
import { findTask } from './task-ops.js';

/** What the service needs of the controller for an exec. */
export interface ExecPort {
  exec(task: string, attempt: number, spec: ExecSpec): Promise<ExecSession>;
}

/** A started exec: the session and its record. */
export interface ExecStarted {
  session: ExecSession;
  event: ExecEvent;
}

/** Why a worker is gone as an exec sees it (its node gone or not Ready, drained), or null while it is there. */
export function workerGone(worker: Worker | undefined, id: string): string | null {
  if (!worker) return `worker ${id} is gone`;
  // Left the config while its tasks run on: the machine is still there (its node would be gone).
  if (worker.left?.by === 'config' && worker.state === 'DRAINING') return null;
  if (worker.state === 'DRAINING' || worker.state === 'DRAINED') return `worker ${id} is ${worker.state}`;
  if (worker.state === 'DISABLED' && worker.disabled?.by === 'node' && !/cordon/.test(worker.disabled.reason)) {
    return `worker ${id} is unavailable (${worker.disabled.reason})`;
  }
  return null;
}

/**
 * Why `task` of `job` takes no exec into attempt `attempt` now, or null. `attemptState` is the
 * state of that attempt when it is not the task's current one.
 */
export function execRefusal(
  job: Job,
  task: Task,
  attempt: number,
  attemptState: string | null,
  worker: Worker | undefined,
): IrisError | null {
  const logs = `see its state with \`iris status ${job.name}\` and its output with \`iris logs ${task.id}\``;
  if (isFinalJobState(job.state))
    return notFound(`job ${job.name} has ended (${job.state}): nothing runs in ${task.id} to exec into`, logs);
  if (attempt !== task.attempt) {
    return notFound(
      attemptState === null
        ? `${task.id} has no attempt ${attempt}; its current attempt is ${task.attempt}`
        : `attempt ${attempt} of ${task.id} has ended (${attemptState}); the task is at attempt ${task.attempt}`,
      'leave --attempt out for the current one',
    );
  }
  if (task.state !== 'RUNNING') {
    const why = task.reason ? ` (${task.reason})` : '';
    return notFound(
      `${task.id} is ${task.state}, not running${why}: nothing to exec into`,
      task.state === 'ASSIGNED' || task.state === 'PENDING'
        ? `wait until it runs (\`iris status ${job.name}\`), then try again`
        : logs,
    );
  }
  const gone = task.workerId === null ? 'it has no worker' : workerGone(worker, task.workerId);
  if (gone !== null) {
    const gang = job.spec.coschedule ? ` (a member of a gang on ${job.spec.coschedule})` : '';
    return notFound(`${task.id}${gang} cannot be reached: ${gone}`, `its attempt will end as lost; ${logs}`);
  }
  return null;
}

/** Checks the task, records the exec, and starts it. */
export async function startExec(
  store: ClusterStore,
  controller: ExecPort,
  request: ExecRequest,
  caller: TaskCaller | null,
  owner: string,
): Promise<ExecStarted> {
  const { job, task } = findTask(store, request.task);
  const attempt = request.attempt ?? task.attempt;
  const stored = attempt === task.attempt ? null : store.attempt(task.id, attempt);
  const refusal = execRefusal(
    job,
    task,
    attempt,
    stored ? stored.state : null,
    task.workerId ? store.worker(task.workerId) : undefined,
  );
  if (refusal) throw refusal;
  const by: ExecRecord['by'] = caller ? { kind: 'task', task: caller.task } : { kind: 'owner', user: owner };
  const record: ExecRecord = { by, command: [...request.command], tty: request.tty === true };
  store.recordExec(task.id, attempt, record);
  const session = await controller.exec(task.id, attempt, {
    argv: [...request.command],
    tty: request.tty === true,
    stdin: request.stdin === true,
    ...(request.size ? { size: request.size } : {}),
  });
  return { session, event: { time: Date.now(), task: task.id, attempt, ...record } };
}

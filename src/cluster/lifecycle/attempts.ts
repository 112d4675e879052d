/**
 * The task and attempt lifecycle, decided (changes.ts): assignment, the start, an attempt's end,
 * retries, preemptions and gang restarts. Pure; reconcile.ts applies what these functions return.
 *
 * Invariants:
 * - An attempt is live (state RUNNING) exactly while its task is ASSIGNED/RUNNING on it.
 * - When the lifecycle ends a live attempt on its own initiative (kill, gang restart, drain), it
 *   orders it stopped (a `stop` change) so the controller stops it in the runtime.
 * - A retried/requeued task keeps submittedAt and seq (its queue position); attempt+1.
 * - A gang's members restart together; a member failing for good fails the whole job.
 * - When a task is requeued (retry, preemption, gang restart, restart of the cluster), the
 *   jobs its earlier attempts submitted (`spec.submittedBy`) are killed with their subtrees:
 *   the new attempt starts with no children and may submit the same names again.
 * - Task merging (docs/architecture.md, "Task merging"): the attempts of a merged batch start
 *   together (assignMerged) and run as the lead's process; a member's attempt follows the lead's
 *   (markRunning, mergedEnd): it succeeds, fails (`merged with <lead>: …`, counted against its own
 *   retries) or is preempted with it; when the lifecycle stops the lead (cancel, kill), the
 *   members still live go back to the queue uncounted. A member ended on its own (cancelled) is
 *   only detached: the process goes on for the others.
 * - An attempt's end leaves its cache hints (cache-hints.ts), decided before its task's state
 *   changes (that state tells whether it ran), then its endpoints go.
 */
import { IrisError, conflict, notFound } from '../../model/errors.js';
import { isActiveTaskState, type AttemptOutcome, type AttemptState, type FailureState } from '../../model/states.js';
import type { RequeueReason } from '../../model/requeue.js';
import type { Attempt, PlacementDecision, Task } from '../../model/types.js';
import { hintsOfEndedAttempt } from './cache-hints.js';
import { NO_ITEMS } from './changes.js';
import type { Decision, Item, JobRecord, LifecycleView, Step, StepDecider } from './changes.js';
import {
  GANG_RESTARTED,
  PARENT_ENDED,
  parentRerunReason,
  retryAfterFailure,
  retryAfterPreemption,
  retryBackoffMs,
  retryDetail,
  pipelineRootReason,
  taskFailureReason,
} from './retries.js';
import { classifyOutcome } from './transitions.js';

export function taskOrThrow(view: LifecycleView, id: string): Task {
  const t = view.task(id);
  if (!t) throw notFound(`task ${id} not found`);
  return t;
}

export function attemptOrThrow(view: LifecycleView, taskId: string, n: number): Attempt {
  const a = view.attempt(taskId, n);
  if (!a) throw notFound(`attempt ${n} of task ${taskId} not found`);
  return a;
}

const jobOf = (view: LifecycleView, task: Task): JobRecord => view.job(task.job)!;
const settle = (job: JobRecord, finalReason: string | null, failure?: FailureState): Step =>
  failure === undefined ? { kind: 'settle', job, finalReason } : { kind: 'settle', job, finalReason, failure };

/** A new attempt of a PENDING task on a READY worker: the attempt, and the items that start it. */
export function assign(
  view: LifecycleView,
  taskId: string,
  workerId: string,
  logPath: string,
  devices: readonly number[],
  placement: PlacementDecision | null,
  now: number,
): { attempt: Attempt; items: readonly Item[] } {
  const task = taskOrThrow(view, taskId);
  const worker = view.worker(workerId);
  if (!worker) throw notFound(`worker ${workerId} not found`);
  if (worker.state !== 'READY') throw conflict(`worker ${workerId} is ${worker.state}`);
  if (task.state !== 'PENDING')
    throw new IrisError('internal', `illegal task transition ${task.state} -> ASSIGNED for ${taskId}`);
  if (view.attempt(taskId, task.attempt))
    throw new IrisError('internal', `attempt ${task.attempt} of ${taskId} already exists`);
  const attempt: Attempt = {
    task: taskId,
    attempt: task.attempt,
    workerId,
    state: 'RUNNING',
    pid: null,
    exitCode: null,
    reason: null,
    startedAt: now,
    finishedAt: null,
    logPath,
    devices: [...devices],
    logCutBytes: null,
    cpuSeconds: null,
    peakMemoryBytes: null,
    placement,
  };
  const items: Item[] = [
    { kind: 'attempt-start', attempt },
    { kind: 'task', task, patch: { state: 'ASSIGNED', workerId, reason: null, exitCode: null } },
    settle(jobOf(view, task), null),
  ];
  return { attempt, items };
}

/** The attempt's process or container started (`pid` when known); nothing for one that already ended. */
export function markRunning(view: LifecycleView, taskId: string, n: number, pid: number | null, now: number): Decision {
  const task = taskOrThrow(view, taskId);
  const a = attemptOrThrow(view, taskId, n);
  if (a.state !== 'RUNNING') return NO_ITEMS; // already ended (stopped, preempted): nothing to start
  if (task.attempt !== n || !isActiveTaskState(task.state))
    throw new IrisError('internal', `attempt ${n} of ${taskId} is live but the task is ${task.state}`);
  const out: Item[] = [];
  if (a.pid !== pid) out.push({ kind: 'attempt', attempt: a, patch: { pid } });
  if (task.state === 'ASSIGNED') out.push({ kind: 'task', task, patch: { state: 'RUNNING', startedAt: now } });
  // A merged batch's members start with their lead (their attempts have no process of their own).
  for (const member of liveMembers(view, a)) {
    const t = view.task(member.task);
    if (t?.state === 'ASSIGNED') out.push({ kind: 'task', task: t, patch: { state: 'RUNNING', startedAt: now } });
  }
  return out;
}

/**
 * A merged batch: the lead `taskId` and its `members` start as one attempt each on `workerId` (the
 * members hold no devices and share the lead's log). The items of every assign, in order.
 */
export function assignMerged(
  view: LifecycleView,
  taskId: string,
  members: readonly string[],
  workerId: string,
  logPath: string,
  devices: readonly number[],
  placement: PlacementDecision | null,
  now: number,
): { attempt: Attempt; items: readonly Item[] } {
  const tasks = [taskId, ...members];
  const merged = members.length === 0 ? null : { lead: taskId, tasks };
  const lead = assign(view, taskId, workerId, logPath, devices, placement, now);
  if (merged === null) return lead;
  lead.attempt.merged = merged;
  const items: Item[] = [...lead.items];
  for (const member of members) {
    const m = assign(view, member, workerId, logPath, [], placement, now);
    m.attempt.merged = merged;
    items.push(...m.items);
  }
  return { attempt: lead.attempt, items };
}

/** The live attempts of `a`'s batch other than `a`, when `a` is a merged batch's lead; else none. */
function liveMembers(view: LifecycleView, a: Attempt): Attempt[] {
  if (!a.merged || a.merged.lead !== a.task) return [];
  const out: Attempt[] = [];
  for (const id of a.merged.tasks) {
    if (id === a.task) continue;
    const m = view.liveAttempt(id);
    if (m?.merged?.lead === a.task && m.startedAt === a.startedAt) out.push(m);
  }
  return out;
}

/** A `merged-end` step: a member follows its lead's end (see the header). */
export const mergedEnd: StepDecider<'merged-end'> = (view, step, now) => {
  const task = view.task(step.task);
  const a = view.liveAttempt(step.task);
  if (!task || !a || a.merged?.lead !== step.lead || !isActiveTaskState(task.state)) return NO_ITEMS;
  const job = jobOf(view, task);
  const why = `merged with ${step.lead}`;
  if (step.state === 'SUCCEEDED') {
    const out = endAttempt(view, a, task, 'SUCCEEDED', why, 0, now);
    out.push(
      { kind: 'task', task, patch: { state: 'SUCCEEDED', exitCode: 0, reason: why, finishedAt: now } },
      settle(job, null),
    );
    return out;
  }
  if (step.state === 'FAILED') {
    const reason = step.reason ? `${why}: ${step.reason}` : why;
    const failure = step.failure ?? 'FAILED';
    const out = endAttempt(view, a, task, 'FAILED', reason, step.exitCode, now, reason, failure);
    return pushAll(out, taskFailed(view, job, task, failure, reason, step.exitCode, now));
  }
  if (step.state === 'PREEMPTED') {
    const reason = step.reason ? `${why}: ${step.reason}` : why;
    const out = endAttempt(view, a, task, 'PREEMPTED', reason, null, now);
    return pushAll(out, taskPreempted(view, job, task, reason, now));
  }
  // The lifecycle stopped the lead (cancelled, killed): the member goes back to the queue, uncounted.
  const reason = `${why}, which was stopped (${step.reason ?? 'killed'})`;
  const out = endAttempt(view, a, task, 'KILLED', reason, null, now);
  out.push({ kind: 'task', task, patch: { state: 'PREEMPTED', reason } });
  pushAll(out, requeue(view, task, reason, { reason: 'preemption', detail: reason }, null));
  out.push(settle(job, null));
  return out;
};

/**
 * The runtime reports how an attempt ended. A live attempt ends as its outcome says: its task
 * succeeds, fails (retried while its budget allows) or is preempted (requeued likewise). An
 * attempt that had already ended only takes the exit code it lacked.
 */
export function attemptEnded(
  view: LifecycleView,
  taskId: string,
  n: number,
  outcome: AttemptOutcome,
  now: number,
): Decision {
  const task = taskOrThrow(view, taskId);
  const a = attemptOrThrow(view, taskId, n);
  const verdict = classifyOutcome(outcome);
  if (a.state !== 'RUNNING') {
    return verdict.exitCode !== null && a.exitCode === null
      ? [{ kind: 'attempt', attempt: a, patch: { exitCode: verdict.exitCode } }]
      : NO_ITEMS;
  }
  if (task.attempt !== n || !isActiveTaskState(task.state))
    throw new IrisError('internal', `attempt ${n} of ${taskId} is live but the task is ${task.state}`);
  const job = jobOf(view, task);
  if (verdict.kind === 'succeeded') {
    const out = endAttempt(view, a, task, 'SUCCEEDED', verdict.reason, 0, now);
    out.push(
      { kind: 'task', task, patch: { state: 'SUCCEEDED', exitCode: 0, reason: verdict.reason, finishedAt: now } },
      settle(job, null),
    );
    return out;
  }
  if (verdict.kind === 'preempted') {
    const out = endAttempt(view, a, task, 'PREEMPTED', verdict.reason, null, now);
    return pushAll(out, taskPreempted(view, job, task, verdict.reason ?? 'preempted', now));
  }
  // 'killed' for a live attempt means it was stopped without a stop order from the lifecycle:
  // treat it like any other failure so the retry budget applies. A merged batch's lead names the
  // members it fails with it (its "merged children"); each member's reason names the lead.
  const children = liveMembers(view, a).map((m) => m.task);
  const reason =
    children.length === 0 ? verdict.reason : `${verdict.reason ?? 'failed'}; merged children: ${children.join(', ')}`;
  const failure = verdict.failure ?? 'FAILED';
  const out = endAttempt(view, a, task, 'FAILED', reason, verdict.exitCode, now, verdict.reason, failure);
  return pushAll(out, taskFailed(view, job, task, failure, reason, verdict.exitCode, now));
}

/** Infrastructure lost a live attempt; it is also ordered stopped in case it still runs. */
export function preemptAttempt(view: LifecycleView, taskId: string, n: number, reason: string, now: number): Decision {
  const task = taskOrThrow(view, taskId);
  const a = attemptOrThrow(view, taskId, n);
  if (a.state !== 'RUNNING') return NO_ITEMS;
  return stopAsPreempted(view, a, task, reason, now);
}

/** Live attempt `a` of `task` stopped as a preemption: the stop order, the attempt's end, the task preempted. */
export function stopAsPreempted(view: LifecycleView, a: Attempt, task: Task, reason: string, now: number): Item[] {
  const out: Item[] = [{ kind: 'stop', order: { task: a.task, attempt: a.attempt, workerId: a.workerId, reason } }];
  pushAll(out, endAttempt(view, a, task, 'PREEMPTED', reason, null, now));
  return pushAll(out, taskPreempted(view, jobOf(view, task), task, reason, now));
}

/**
 * The end of live attempt `a` of `task`: the cache hints it leaves (read before the task's state
 * changes), its state, and its endpoints. Returns a new array the caller may extend.
 */
export function endAttempt(
  view: LifecycleView,
  a: Attempt,
  task: Task,
  state: AttemptState,
  reason: string | null,
  exitCode: number | null,
  now: number,
  /** The reason a merged batch's members end with (after `merged with <lead>`); default `reason`. */
  memberReason: string | null = reason,
  /** How a failed lead's members fail with it (its own failure: a time limit, a memory kill). */
  memberFailure?: FailureState,
): Item[] {
  const out: Item[] = [];
  const { uses } = jobOf(view, task).job.spec;
  const known = view.worker(a.workerId) !== undefined;
  hintsOfEndedAttempt(
    out,
    a.workerId,
    task.state === 'RUNNING',
    uses,
    known,
    view.hints(a.workerId),
    now,
    view.hintTtl,
  );
  out.push(
    { kind: 'attempt', attempt: a, patch: { state, reason, exitCode: exitCode ?? a.exitCode, finishedAt: now } },
    { kind: 'endpoints-dropped', task: a.task },
  );
  // A merged batch's lead: each member still live follows (mergedEnd), when its turn comes.
  if (a.merged && a.merged.lead === a.task) {
    for (const member of a.merged.tasks) {
      if (member !== a.task) {
        out.push({
          kind: 'merged-end',
          task: member,
          lead: a.task,
          state,
          reason: memberReason,
          exitCode: exitCode ?? a.exitCode,
          ...(memberFailure !== undefined ? { failure: memberFailure } : {}),
        });
      }
    }
  }
  // A worker that left the cluster is gone once its last attempt ended (workers.ts leftWorkerIdle).
  if (view.worker(a.workerId)?.left) out.push({ kind: 'left-worker-idle', worker: a.workerId });
  return out;
}

/**
 * A task whose attempt failed as `failure` (FAILED, TIMEOUT, OUT_OF_MEMORY: its state): retried
 * (after its backoff) while its budget allows, else failed for good, deciding its job's state.
 */
function taskFailed(
  view: LifecycleView,
  job: JobRecord,
  task: Task,
  failure: FailureState,
  reason: string | null,
  exitCode: number | null,
  now: number,
): Item[] {
  const failures = task.failures + 1;
  const out: Item[] = [{ kind: 'task', task, patch: { state: failure, failures, exitCode, reason } }];
  const spec = job.job.spec;
  if (retryAfterFailure(failures, spec.maxRetries)) {
    const backoff = retryBackoffMs(failures, spec.retryBackoffMs, spec.retryBackoffMaxMs);
    const eligibleAt = backoff > 0 ? now + backoff : null;
    const event = { reason: 'retry' as const, detail: retryDetail(reason, failures, spec.maxRetries, backoff) };
    return backInQueue(out, view, job, task, `retrying after ${reason ?? 'failure'}`, event, 'failed', eligibleAt);
  }
  out.push(
    { kind: 'task', task, patch: { finishedAt: now } },
    { kind: 'job', job: job.job, patch: { failedTasks: job.job.failedTasks + 1 } },
  );
  if (spec.coschedule !== null) {
    const why = `gang member ${task.id} failed`;
    for (const s of job.tasks)
      if (s !== task) out.push({ kind: 'kill-task', task: s, state: 'COSCHED_FAILED', reason: why });
  }
  // A pipeline root's task only waits on its stages: its failure is theirs, named by stage.
  const stageFailure = pipelineRootReason(job.job, (name) => view.job(name)?.job);
  out.push(settle(job, stageFailure ?? taskFailureReason(task.id, reason, failure), failure));
  return out;
}

/** A task whose attempt was preempted: requeued while its budget allows, else WORKER_FAILED. */
export function taskPreempted(view: LifecycleView, job: JobRecord, task: Task, reason: string, now: number): Item[] {
  const preemptions = task.preemptions + 1;
  const out: Item[] = [{ kind: 'task', task, patch: { state: 'PREEMPTED', preemptions, reason } }];
  if (retryAfterPreemption(preemptions, job.job.spec.maxPreemptions)) {
    const event = { reason: 'preemption' as const, detail: reason };
    return backInQueue(out, view, job, task, `requeued after preemption: ${reason}`, event, 'was preempted', null);
  }
  const why = `preempted ${preemptions} time${preemptions === 1 ? '' : 's'} (${reason})`;
  out.push(
    { kind: 'task', task, patch: { state: 'WORKER_FAILED', reason: why, finishedAt: now } },
    settle(job, `task ${task.id} ${why}`),
  );
  return out;
}

/** A task going back in the queue (appended to `out`): requeued, the rest of its gang restarted, its job settled. */
function backInQueue(
  out: Item[],
  view: LifecycleView,
  job: JobRecord,
  task: Task,
  reason: string,
  event: { reason: RequeueReason; detail: string },
  what: 'failed' | 'was preempted',
  eligibleAt: number | null,
): Item[] {
  pushAll(out, requeue(view, task, reason, event, eligibleAt));
  pushAll(out, restartGang(job, task, what, eligibleAt));
  out.push(settle(job, null));
  return out;
}

/**
 * Back in the queue for attempt+1; `eligibleAt`: not placed before then (a retry backoff). The
 * requeue event `event` is recorded under the attempt that ended; the jobs the task's earlier
 * attempts submitted are killed with their subtrees.
 */
function requeue(
  view: LifecycleView,
  task: Task,
  reason: string,
  event: { reason: RequeueReason; detail: string },
  eligibleAt: number | null,
): Item[] {
  const next = task.attempt + 1;
  const out: Item[] = [
    {
      kind: 'requeue',
      task: task.id,
      attempt: task.attempt,
      job: task.job,
      reason: event.reason,
      detail: event.detail,
      run: view.job(task.job)?.job.run ?? null,
    },
    {
      kind: 'task',
      task,
      patch: { state: 'PENDING', attempt: next, workerId: null, startedAt: null, reason, eligibleAt },
    },
  ];
  const why = parentRerunReason(task.id, next);
  for (const child of view.children(task.job)) {
    const entry = view.job(child)!;
    const by = entry.job.spec.submittedBy;
    if (by?.task === task.id && by.attempt < next)
      out.push({
        kind: 'end-job',
        end: { entry, state: 'KILLED', reason: why, taskReason: why, childReason: PARENT_ENDED },
      });
  }
  return out;
}

/** The gang's other members, each stopped and requeued (not counted) if still live when its turn comes. */
function restartGang(
  job: JobRecord,
  trigger: Task,
  what: 'failed' | 'was preempted',
  eligibleAt: number | null,
): Item[] {
  if (job.job.spec.coschedule === null) return [];
  const out: Item[] = [];
  for (const task of job.tasks)
    if (task !== trigger) out.push({ kind: 'restart-member', task, trigger, what, eligibleAt });
  return out;
}

/** A `restart-member` step, when its turn comes. */
export const restartMember: StepDecider<'restart-member'> = (view, step, now) => {
  const s = step.task;
  if (!isActiveTaskState(s.state)) return NO_ITEMS;
  const a = view.liveAttempt(s.id)!;
  const out: Item[] = [
    { kind: 'stop', order: { task: s.id, attempt: a.attempt, workerId: a.workerId, reason: GANG_RESTARTED } },
  ];
  pushAll(out, endAttempt(view, a, s, 'KILLED', GANG_RESTARTED, null, now));
  out.push({ kind: 'task', task: s, patch: { state: 'PREEMPTED', reason: GANG_RESTARTED } });
  const detail = `gang member ${step.trigger.id} ${step.what}`;
  return pushAll(out, requeue(view, s, GANG_RESTARTED, { reason: 'gang_restart', detail }, step.eligibleAt));
};

function pushAll<T>(to: T[], from: readonly T[]): T[] {
  for (const x of from) to.push(x);
  return to;
}

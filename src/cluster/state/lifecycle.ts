/**
 * The task/attempt/job lifecycle applied to the in-memory model: assignment, attempt ends,
 * retries, preemptions, gangs, failure domains and the job-end cascade. Decisions come from
 * the pure rules in transitions.ts; every change goes through the model's primitives.
 *
 * Invariants:
 * - An attempt is live (state RUNNING) exactly while its task is ASSIGNED/RUNNING on it.
 * - When the store ends a live attempt on its own initiative (kill, gang restart, drain), it
 *   returns a StopOrder so the controller stops it in the runtime.
 * - A retried/requeued task keeps submittedAt and seq (its queue position); attempt+1.
 * - A gang's members restart together; a member failing for good fails the whole job.
 * - When a job ends (any final state) its non-final tasks and its whole subtree are killed.
 * - When a job ends, the jobs waiting on it (model.dependents) are looked at again, in the same
 *   transaction (dependencies.ts decides): met ones join the queue; one that can never be met
 *   ends FAILED with reason `dependency /prep failed` and cause `dependency_failure` naming the
 *   job, and so on down the chain (a cascade). The cascade is a loop (cascade.ts), never a
 *   recursion: a chain of any length ends without exhausting the stack, in time linear in it.
 * - A pipeline stage's `${stages…}` references are resolved when its dependencies are met
 *   (release.ts): its spec takes the values, or it fails with `stage_reference_pending: …`.
 * - When a task is requeued (retry, preemption, gang restart, restart of the cluster), the
 *   jobs its earlier attempts submitted (`spec.submittedBy`) are killed with their subtrees:
 *   the new attempt starts with no children and may submit the same names again.
 */
import { IrisError, conflict, notFound } from '../../model/errors.js';
import { isActiveTaskState, isFinalJobState, isFinalTaskState, type AttemptOutcome, type AttemptState, type JobState } from '../../model/states.js';
import type { Attempt, DisabledBy, Job, PlacementDecision, Task } from '../../model/types.js';
import { dependenciesStatus, dependencyFailureReason } from '../lifecycle/dependencies.js';
import type { RequeueReason } from '../../model/requeue.js';
import { attemptHistoryName, type StopOrder } from './events.js';
import { runCascade, type JobEnd } from './cascade.js';
import { settleDependent, type ResultsOf } from './release.js';
import { recordAttemptEnd } from './cache-hints.js';
import type { ClusterModel, JobEntry } from './model.js';
import { classifyOutcome, deriveJobState } from '../lifecycle/transitions.js';
import {
  GANG_RESTARTED, PARENT_ENDED, endedJobTaskReason, parentRerunReason, retryAfterFailure, retryAfterPreemption, retryBackoffMs, retryDetail,
  taskFailureReason,
} from '../lifecycle/retries.js';

/** A task that will never run again (model/states.ts). */
const isFinalTask = (t: Task): boolean => isFinalTaskState(t.state);

export class Lifecycle {
  constructor(private readonly m: ClusterModel, private readonly resultsOf: ResultsOf = () => new Map()) {}

  taskOrThrow(id: string): Task {
    const t = this.m.tasks.get(id);
    if (!t) throw notFound(`task ${id} not found`);
    return t;
  }

  private entryOf(task: Task): JobEntry {
    return this.m.jobs.get(task.job)!;
  }

  assign(taskId: string, workerId: string, logPath: string, devices: readonly number[] = [], placement: PlacementDecision | null = null): Attempt {
    const task = this.taskOrThrow(taskId);
    const worker = this.m.workers.get(workerId);
    if (!worker) throw notFound(`worker ${workerId} not found`);
    if (worker.state !== 'READY') throw conflict(`worker ${workerId} is ${worker.state}`);
    if (task.state !== 'PENDING') throw new IrisError('internal', `illegal task transition ${task.state} -> ASSIGNED for ${taskId}`);
    if (this.m.attempts.get(taskId)?.[task.attempt]) throw new IrisError('internal', `attempt ${task.attempt} of ${taskId} already exists`);
    const attempt: Attempt = {
      task: taskId, attempt: task.attempt, workerId, state: 'RUNNING', pid: null, exitCode: null, reason: null,
      startedAt: this.m.now(), finishedAt: null, logPath, devices: [...devices], logCutBytes: null, cpuSeconds: null, peakMemoryBytes: null, placement,
    };
    this.m.addAttempt(attempt);
    this.m.patchTask(task, { state: 'ASSIGNED', workerId, reason: null, exitCode: null });
    this.settle(this.entryOf(task), null, []);
    return attempt;
  }

  /** The attempt's output passed the log limit `limitBytes`: its log was cut there. */
  markLogCut(taskId: string, n: number, limitBytes: number): void {
    const a = this.attemptOrThrow(taskId, n);
    if (a.logCutBytes !== limitBytes) this.m.patchAttempt(a, { logCutBytes: limitBytes });
  }

  /** What the attempt used, as its runtime measured it when it ended (null fields: unknown). */
  recordUsage(taskId: string, n: number, usage: Pick<Attempt, 'cpuSeconds' | 'peakMemoryBytes'>): void {
    const a = this.attemptOrThrow(taskId, n);
    if (a.cpuSeconds !== usage.cpuSeconds || a.peakMemoryBytes !== usage.peakMemoryBytes) {
      this.m.patchAttempt(a, { cpuSeconds: usage.cpuSeconds, peakMemoryBytes: usage.peakMemoryBytes });
    }
  }

  markRunning(taskId: string, n: number, pid: number | null): void {
    const task = this.taskOrThrow(taskId);
    const a = this.attemptOrThrow(taskId, n);
    if (a.state !== 'RUNNING') return; // already ended (stopped, preempted): nothing to start
    if (task.attempt !== n || !isActiveTaskState(task.state)) throw new IrisError('internal', `attempt ${n} of ${taskId} is live but the task is ${task.state}`);
    if (a.pid !== pid) this.m.patchAttempt(a, { pid });
    if (task.state === 'ASSIGNED') this.m.patchTask(task, { state: 'RUNNING', startedAt: this.m.now() });
  }

  attemptOrThrow(taskId: string, n: number): Attempt {
    const a = this.m.attempts.get(taskId)?.[n];
    if (!a) throw notFound(`attempt ${n} of task ${taskId} not found`);
    return a;
  }

  finishAttempt(taskId: string, n: number, outcome: AttemptOutcome): StopOrder[] {
    const task = this.taskOrThrow(taskId);
    const a = this.attemptOrThrow(taskId, n);
    const verdict = classifyOutcome(outcome);
    if (a.state !== 'RUNNING') {
      if (verdict.exitCode !== null && a.exitCode === null) this.m.patchAttempt(a, { exitCode: verdict.exitCode });
      return [];
    }
    if (task.attempt !== n || !isActiveTaskState(task.state)) throw new IrisError('internal', `attempt ${n} of ${taskId} is live but the task is ${task.state}`);
    const stops: StopOrder[] = [];
    const entry = this.entryOf(task);
    if (verdict.kind === 'succeeded') {
      this.endAttempt(a, 'SUCCEEDED', verdict.reason, 0);
      this.m.patchTask(task, { state: 'SUCCEEDED', exitCode: 0, reason: verdict.reason, finishedAt: this.m.now() });
      this.settle(entry, null, stops);
    } else if (verdict.kind === 'preempted') {
      this.endAttempt(a, 'PREEMPTED', verdict.reason, null);
      this.preemptTask(entry, task, verdict.reason ?? 'preempted', stops);
    } else {
      // 'killed' for a live attempt means it was stopped without a StopOrder from the store:
      // treat it like any other failure so the retry budget applies.
      this.endAttempt(a, 'FAILED', verdict.reason, verdict.exitCode);
      this.failTask(entry, task, verdict.reason, verdict.exitCode, stops);
    }
    return stops;
  }

  /** Infrastructure lost a live attempt; also orders it stopped in case it still runs. */
  preemptAttempt(taskId: string, n: number, reason: string): StopOrder[] {
    const task = this.taskOrThrow(taskId);
    const a = this.attemptOrThrow(taskId, n);
    if (a.state !== 'RUNNING') return [];
    const stops: StopOrder[] = [{ task: taskId, attempt: n, workerId: a.workerId, reason }];
    this.endAttempt(a, 'PREEMPTED', reason, null);
    this.preemptTask(this.entryOf(task), task, reason, stops);
    return stops;
  }

  drainWorker(id: string): StopOrder[] {
    const w = this.m.workers.get(id);
    if (!w) throw notFound(`worker ${id} not found`);
    if (w.state === 'DRAINED') return [];
    this.m.putWorker({ ...w, state: 'DRAINING', disabled: null });
    const reason = `worker ${id} drained`;
    const stops: StopOrder[] = [];
    const live = [...this.m.active.values()].filter((a) => a.workerId === id);
    for (const a of live) {
      if (this.m.active.get(a.task) !== a) continue; // already restarted with its gang
      stops.push({ task: a.task, attempt: a.attempt, workerId: id, reason });
      this.endAttempt(a, 'PREEMPTED', reason, null);
      const task = this.m.tasks.get(a.task)!;
      this.preemptTask(this.entryOf(task), task, reason, stops);
    }
    this.m.putWorker({ ...this.m.workers.get(id)!, state: 'DRAINED' });
    return stops;
  }

  /**
   * Disable (docs/cli.md, "Disabling workers"): a READY worker takes no new placements; its running
   * tasks go on. Disabling a disabled worker again changes nothing, except that a user's disable
   * replaces the coordinator's (so the coordinator no longer re-enables it). Returns false when
   * nothing changed. A draining or drained worker is a conflict.
   */
  disableWorker(id: string, by: DisabledBy, reason: string): boolean {
    const w = this.m.workers.get(id);
    if (!w) throw notFound(`worker ${id} not found`);
    if (w.state === 'DRAINING' || w.state === 'DRAINED') {
      throw conflict(`worker ${id} is ${w.state}; a drained worker takes no work already`, 'resume it first with `iris workers resume`');
    }
    if (w.state === 'DISABLED' && (w.disabled?.by === 'user' || by === 'elastic')) return false;
    this.m.putWorker({ ...w, state: 'DISABLED', disabled: { by, reason, disabledAt: this.m.now() } });
    return true;
  }

  /**
   * Enable a DISABLED worker: READY again. An enabled (READY) worker is left as it is (false);
   * a drained one is a conflict. `onlyBy`: enable only when disabled by that party (the elastic
   * coordinator re-enables only what it disabled itself).
   */
  enableWorker(id: string, onlyBy?: DisabledBy): boolean {
    const w = this.m.workers.get(id);
    if (!w) throw notFound(`worker ${id} not found`);
    if (w.state === 'DRAINING' || w.state === 'DRAINED') {
      throw conflict(`worker ${id} is ${w.state}, not disabled`, 'a drained worker is put back with `iris workers resume`');
    }
    if (w.state !== 'DISABLED') return false;
    if (onlyBy !== undefined && w.disabled?.by !== onlyBy) return false;
    this.m.putWorker({ ...w, state: 'READY', disabled: null });
    return true;
  }

  /** Undrain: a DRAINED worker becomes READY and takes work again; any other state is a conflict. */
  resumeWorker(id: string): void {
    const w = this.m.workers.get(id);
    if (!w) throw notFound(`worker ${id} not found`);
    if (w.state !== 'DRAINED') throw conflict(`worker ${id} is not drained (it is ${w.state})`, 'only a drained worker can be resumed; see `iris workers`');
    this.m.putWorker({ ...w, state: 'READY' });
  }

  cancel(name: string, reason: string): StopOrder[] {
    const entry = this.m.jobs.get(name);
    if (!entry) throw notFound(`job ${name} not found`);
    const stops: StopOrder[] = [];
    this.endJob(entry, 'KILLED', reason, reason, reason, stops);
    return stops;
  }

  /**
   * Cancel one task (docs/cli.md, "Cancelling one task"): it ends CANCELLED, its live attempt is
   * stopped, and the jobs its attempts submitted are killed with their subtrees. It is no failure:
   * the job goes on with its other tasks and ends by them (KILLED only when every task was
   * cancelled). A gang cannot run without a member, so cancelling one ends its job KILLED.
   * A task that already ended is left as it is.
   */
  cancelTask(taskId: string, reason: string): StopOrder[] {
    const task = this.taskOrThrow(taskId);
    const entry = this.entryOf(task);
    const stops: StopOrder[] = [];
    if (isFinalTask(task) || isFinalJobState(entry.job.state)) return stops;
    this.killTask(task, 'CANCELLED', reason, stops);
    const why = `parent task ${task.id} cancelled`;
    for (const child of [...(this.m.children.get(task.job) ?? [])]) {
      const childEntry = this.m.jobs.get(child)!;
      if (childEntry.job.spec.submittedBy?.task === task.id) this.endJob(childEntry, 'KILLED', why, why, PARENT_ENDED, stops);
    }
    if (entry.job.spec.coschedule !== null) {
      const gang = `gang member ${task.id} cancelled (a gang cannot run without it)`;
      this.endJob(entry, 'KILLED', gang, gang, PARENT_ENDED, stops);
      return stops;
    }
    const allCancelled = entry.tasks.every((t) => t.state === 'CANCELLED');
    this.settle(entry, allCancelled ? 'every task was cancelled' : null, stops);
    return stops;
  }

  markUnschedulable(name: string, reason: string): StopOrder[] {
    const entry = this.m.jobs.get(name);
    if (!entry) throw notFound(`job ${name} not found`);
    const stops: StopOrder[] = [];
    if (!isFinalJobState(entry.job.state)) this.endJob(entry, 'UNSCHEDULABLE', reason, reason, PARENT_ENDED, stops);
    return stops;
  }

  /**
   * Quarantine a job whose rows or recovery failed at start-up (load-check.ts): it ends FAILED with
   * `reason`, as any job's end (its tasks, its subtree, the jobs waiting on it). One that had
   * already ended keeps its state and takes the reason, and what is left of its tasks ends: it is
   * written again, readable.
   */
  quarantine(name: string, reason: string): StopOrder[] {
    const entry = this.m.jobs.get(name);
    if (!entry) return [];
    const stops: StopOrder[] = [];
    if (isFinalJobState(entry.job.state)) {
      this.m.patchJob(entry.job, { reason });
      for (const t of entry.tasks) this.killTask(t, 'KILLED', reason, stops);
    }
    this.endJob(entry, 'FAILED', reason, reason, PARENT_ENDED, stops);
    return stops;
  }

  removeEndpointsOf(taskId: string): void {
    const keys = this.m.endpointsByTask.get(taskId);
    if (!keys) return;
    for (const key of [...keys]) this.m.dropEndpoint(this.m.endpoints.get(key)!);
  }

  /**
   * Whether a new job must wait on its dependencies; a dependency that can never be met any more
   * (its job already ended otherwise) refuses the submission (conflict).
   */
  waitsOnDependencies(job: Pick<Job, 'name' | 'spec'>): boolean {
    const status = dependenciesStatus(job.spec.after, this.stateOf);
    if (status.kind === 'never') {
      throw conflict(`${job.name} can never start: ${dependencyFailureReason(status.on, status.state)}`,
        `--after ${status.on.job}${status.on.condition === 'ok' ? '' : `:${status.on.condition}`} waits for it to end ${status.on.condition === 'failed' ? 'without success' : 'successfully'}; re-run it first (iris retry ${status.on.job}), or choose another condition (:any)`);
    }
    return status.kind === 'waiting';
  }

  private readonly stateOf = (name: string): JobState | undefined => this.m.jobs.get(name)?.job.state;

  // ---- rules ----

  private endAttempt(a: Attempt, state: AttemptState, reason: string | null, exitCode: number | null): void {
    recordAttemptEnd(this.m, a); // before the task's state changes: it tells whether the task ran
    this.m.patchAttempt(a, { state, reason, exitCode: exitCode ?? a.exitCode, finishedAt: this.m.now() });
    this.removeEndpointsOf(a.task);
  }

  /**
   * Back in the queue for a new attempt; `eligibleAt`: not placed before then (a retry backoff).
   * Records the requeue event `event` (model/requeue.ts) under the attempt that ended.
   */
  private requeue(task: Task, reason: string, event: { reason: RequeueReason; detail: string }, stops: StopOrder[], eligibleAt: number | null = null): void {
    this.m.recordRequeue(attemptHistoryName(task.id, task.attempt), task.job, event.reason, event.detail, this.m.jobs.get(task.job)?.job.run ?? null);
    this.m.patchTask(task, { state: 'PENDING', attempt: task.attempt + 1, workerId: null, startedAt: null, reason, eligibleAt });
    const why = parentRerunReason(task.id, task.attempt);
    for (const child of [...(this.m.children.get(task.job) ?? [])]) {
      const entry = this.m.jobs.get(child)!;
      const by = entry.job.spec.submittedBy;
      if (by?.task === task.id && by.attempt < task.attempt) this.endJob(entry, 'KILLED', why, why, PARENT_ENDED, stops);
    }
  }

  private failTask(entry: JobEntry, task: Task, reason: string | null, exitCode: number | null, stops: StopOrder[]): void {
    const failures = task.failures + 1;
    this.m.patchTask(task, { state: 'FAILED', failures, exitCode, reason });
    const spec = entry.job.spec;
    if (retryAfterFailure(failures, spec.maxRetries)) {
      const backoff = retryBackoffMs(failures, spec.retryBackoffMs, spec.retryBackoffMaxMs);
      const eligibleAt = backoff > 0 ? this.m.now() + backoff : null;
      this.requeue(task, `retrying after ${reason ?? 'failure'}`, { reason: 'retry', detail: retryDetail(reason, failures, spec.maxRetries, backoff) }, stops, eligibleAt);
      this.restartGang(entry, task, 'failed', stops, eligibleAt);
      this.settle(entry, null, stops);
      return;
    }
    this.m.patchTask(task, { finishedAt: this.m.now() });
    this.m.patchJob(entry.job, { failedTasks: entry.job.failedTasks + 1 });
    if (entry.job.spec.coschedule !== null) {
      for (const s of entry.tasks) if (s !== task) this.killTask(s, 'COSCHED_FAILED', `gang member ${task.id} failed`, stops);
    }
    this.settle(entry, taskFailureReason(task.id, reason), stops);
  }

  private preemptTask(entry: JobEntry, task: Task, reason: string, stops: StopOrder[]): void {
    const preemptions = task.preemptions + 1;
    this.m.patchTask(task, { state: 'PREEMPTED', preemptions, reason });
    if (retryAfterPreemption(preemptions, entry.job.spec.maxPreemptions)) {
      this.requeue(task, `requeued after preemption: ${reason}`, { reason: 'preemption', detail: reason }, stops);
      this.restartGang(entry, task, 'was preempted', stops);
      this.settle(entry, null, stops);
      return;
    }
    const why = `preempted ${preemptions} times (${reason})`;
    this.m.patchTask(task, { state: 'WORKER_FAILED', reason: why, finishedAt: this.m.now() });
    this.settle(entry, `task ${task.id} ${why}`, stops);
  }

  /** Stop the gang's other live members (not counted) and put them back in the queue, waiting until `eligibleAt` with the trigger. */
  private restartGang(entry: JobEntry, trigger: Task, what: 'failed' | 'was preempted', stops: StopOrder[], eligibleAt: number | null = null): void {
    if (entry.job.spec.coschedule === null) return;
    for (const s of entry.tasks) {
      if (s === trigger || !isActiveTaskState(s.state)) continue;
      const a = this.m.active.get(s.id)!;
      stops.push({ task: s.id, attempt: a.attempt, workerId: a.workerId, reason: GANG_RESTARTED });
      this.endAttempt(a, 'KILLED', GANG_RESTARTED, null);
      this.m.patchTask(s, { state: 'PREEMPTED', reason: GANG_RESTARTED });
      this.requeue(s, GANG_RESTARTED, { reason: 'gang_restart', detail: `gang member ${trigger.id} ${what}` }, stops, eligibleAt);
    }
  }

  /** End a non-final task for good, stopping its live attempt. */
  private killTask(task: Task, state: 'KILLED' | 'COSCHED_FAILED' | 'UNSCHEDULABLE' | 'CANCELLED', reason: string, stops: StopOrder[]): void {
    if (isFinalTask(task)) return;
    const a = this.m.active.get(task.id);
    if (a) {
      stops.push({ task: task.id, attempt: a.attempt, workerId: a.workerId, reason });
      this.endAttempt(a, 'KILLED', reason, null);
    }
    this.m.patchTask(task, { state, reason, finishedAt: this.m.now() });
  }

  /** Re-derive the job's state from its tasks; `finalReason` explains a final state. */
  private settle(entry: JobEntry, finalReason: string | null, stops: StopOrder[]): void {
    const { job } = entry;
    const next = deriveJobState(job.state, {
      total: entry.tasks.length, counts: entry.counts, failedTasks: job.failedTasks, maxTaskFailures: job.spec.maxTaskFailures,
    });
    if (next === job.state) return;
    if (isFinalJobState(next)) {
      this.endJob(entry, next, finalReason, endedJobTaskReason(next), PARENT_ENDED, stops);
    } else if (next === 'RUNNING') {
      this.m.patchJob(job, { state: next, reason: null, startedAt: job.startedAt ?? this.m.now() });
    } else {
      this.m.patchJob(job, { state: next, reason: null });
    }
  }

  /**
   * Put a job in a final state, end its remaining tasks and kill its whole subtree; then look
   * again at the jobs waiting on each job that ended (a cascade, cascade.ts: a loop, in the order
   * of a depth-first walk).
   */
  private endJob(entry: JobEntry, state: JobState, reason: string | null, taskReason: string, childReason: string, stops: StopOrder[]): void {
    runCascade<JobEntry>({ entry, state, reason, taskReason, childReason }, {
      end: (end) => {
        const { job } = end.entry;
        if (isFinalJobState(job.state)) return;
        this.m.patchJob(job, { state: end.state, reason: end.reason, finishedAt: this.m.now() });
        for (const t of end.entry.tasks) {
          const taskState = end.state === 'UNSCHEDULABLE' && t.state === 'PENDING' ? 'UNSCHEDULABLE' : 'KILLED';
          this.killTask(t, taskState, end.taskReason, stops);
        }
      },
      children: (end) => this.childEnds(end),
      // After the subtree: a dependent that is also a sibling sees its siblings' final states.
      dependents: (end) => [...(this.m.dependents.get(end.entry.job.name) ?? [])],
      settle: (name) => settleDependent(this.m, name, this.resultsOf),
    });
  }

  /** The ends of a job's children: KILLED with the job's `childReason`. */
  private *childEnds(end: JobEnd<JobEntry>): Generator<JobEnd<JobEntry>> {
    const why = end.childReason;
    for (const child of this.m.children.get(end.entry.job.name) ?? []) {
      yield { entry: this.m.jobs.get(child)!, state: 'KILLED', reason: why, taskReason: why, childReason: why };
    }
  }
}

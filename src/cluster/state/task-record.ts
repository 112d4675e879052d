/**
 * The store's compact representation of a task (docs/benchmarks.md, "Memory"): one object of
 * one shape per task, read through the `Task` interface.
 *
 * Guarantees:
 * - A `TaskRecord` reads as a `Task` field by field: `id`, `job`, `submittedAt` and `seq` are
 *   derived (from its `TaskGroup` and index), the fields that stay null or 0 until a task first
 *   starts, fails or waits (`workerId`, `exitCode`, `reason`, `startedAt`, `finishedAt`,
 *   `eligibleAt`, `failures`, `preemptions`) live in a side object made on the first write of a
 *   value other than that default. Only `state`, `attempt` and those cold fields are writable;
 *   writing `id`, `job`, `index`, `submittedAt` or `seq` throws.
 * - Its own properties are not the `Task` fields: `JSON.stringify` uses `toJSON()` (every field, in
 *   `Task` order); spreading or cloning it does not copy a task — use `plainTask()`.
 * - A `TaskGroup` holds what the tasks of one submission share (job name, `submittedAt`, and the
 *   seq of index 0): a job's tasks hold one group, so `seq` is `seq0 + index`. Loading a task whose
 *   stored values differ gives it a group of its own (`TaskGroups`), so what was stored is read back.
 * - Records are only mutated by the model's primitives (model.ts), like any task.
 */
import { taskName } from '../../model/names.js';
import type { TaskState } from '../../model/states.js';
import type { Task } from '../../model/types.js';

/** What the tasks of one submission share. */
export class TaskGroup {
  constructor(
    readonly job: string,
    readonly submittedAt: number,
    readonly seq0: number,
  ) {}
}

/** The fields of a task that keep their defaults until it first starts, fails or waits. */
class TaskDetails {
  failures = 0;
  preemptions = 0;
  workerId: string | null = null;
  exitCode: number | null = null;
  reason: string | null = null;
  startedAt: number | null = null;
  finishedAt: number | null = null;
  eligibleAt: number | null = null;
}

export class TaskRecord implements Task {
  state: TaskState;
  attempt: number;
  private details: TaskDetails | null = null;

  constructor(
    readonly group: TaskGroup,
    readonly index: number,
    state: TaskState = 'PENDING',
    attempt = 0,
  ) {
    this.state = state;
    this.attempt = attempt;
  }

  /** Built anew on each read (not stored: ~40 bytes per task); compare `job` and `index` where that is enough. */
  get id(): string {
    return taskName(this.group.job, this.index);
  }
  get job(): string {
    return this.group.job;
  }
  get submittedAt(): number {
    return this.group.submittedAt;
  }
  get seq(): number {
    return this.group.seq0 + this.index;
  }

  private write(): TaskDetails {
    return this.details ?? (this.details = new TaskDetails());
  }

  get failures(): number {
    return this.details === null ? 0 : this.details.failures;
  }
  set failures(v: number) {
    if (v !== 0 || this.details !== null) this.write().failures = v;
  }
  get preemptions(): number {
    return this.details === null ? 0 : this.details.preemptions;
  }
  set preemptions(v: number) {
    if (v !== 0 || this.details !== null) this.write().preemptions = v;
  }
  get workerId(): string | null {
    return this.details === null ? null : this.details.workerId;
  }
  set workerId(v: string | null) {
    if (v !== null || this.details !== null) this.write().workerId = v;
  }
  get exitCode(): number | null {
    return this.details === null ? null : this.details.exitCode;
  }
  set exitCode(v: number | null) {
    if (v !== null || this.details !== null) this.write().exitCode = v;
  }
  get reason(): string | null {
    return this.details === null ? null : this.details.reason;
  }
  set reason(v: string | null) {
    if (v !== null || this.details !== null) this.write().reason = v;
  }
  get startedAt(): number | null {
    return this.details === null ? null : this.details.startedAt;
  }
  set startedAt(v: number | null) {
    if (v !== null || this.details !== null) this.write().startedAt = v;
  }
  get finishedAt(): number | null {
    return this.details === null ? null : this.details.finishedAt;
  }
  set finishedAt(v: number | null) {
    if (v !== null || this.details !== null) this.write().finishedAt = v;
  }
  get eligibleAt(): number | null {
    return this.details === null ? null : this.details.eligibleAt;
  }
  set eligibleAt(v: number | null) {
    if (v !== null || this.details !== null) this.write().eligibleAt = v;
  }

  toJSON(): Task {
    return plainTask(this);
  }
}

/** A plain copy of any task (record or plain object): every `Task` field as an own property. */
export function plainTask(t: Task): Task {
  return {
    id: t.id,
    job: t.job,
    index: t.index,
    state: t.state,
    attempt: t.attempt,
    submittedAt: t.submittedAt,
    seq: t.seq,
    failures: t.failures,
    preemptions: t.preemptions,
    workerId: t.workerId,
    exitCode: t.exitCode,
    reason: t.reason,
    startedAt: t.startedAt,
    finishedAt: t.finishedAt,
    eligibleAt: t.eligibleAt,
  };
}

/** Groups by job, reused while their values match (the tasks of one submission load into one). */
export class TaskGroups {
  private readonly last = new Map<string, TaskGroup>();

  of(job: string, submittedAt: number, seq0: number): TaskGroup {
    const g = this.last.get(job);
    if (g !== undefined && g.submittedAt === submittedAt && g.seq0 === seq0) return g;
    const made = new TaskGroup(job, submittedAt, seq0);
    this.last.set(job, made);
    return made;
  }
}

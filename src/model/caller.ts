/**
 * Who is calling: a request that carries a valid task token comes from one running attempt of
 * one task. Admission uses it to name, scope and fill in children (see docs/architecture.md).
 */

/** The running attempt a task token identifies. */
export interface TaskIdentity {
  /** Task id, e.g. `/train/task-0`. */
  task: string;
  /** The task's job, e.g. `/train`. */
  job: string;
  attempt: number;
}

/** The running task attempt behind a request that carried a valid task token. */
export interface TaskCaller extends TaskIdentity {
  user: string;
  /** The env the job was submitted with (children inherit it under their own env). */
  env: Record<string, string>;
  /** Submission time of the caller's tree root (children inherit it for priority). */
  rootSubmittedAt: number;
  /** The caller job's own `--user-in-container` and `--network` (children inherit them); absent: none given. */
  container?: { user: string | null; network: 'bridge' | 'host' | null };
}

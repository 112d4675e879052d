/**
 * Who is calling, and what they may reach. A request that carries a valid task token comes from
 * one running attempt of one task: admission uses it to name, scope and fill in children, and
 * every other call of that task is confined to its own job's subtree (`inScope`). A request
 * without a token comes from the cluster's owner (only the owner's uid, or root, can open the
 * owner's 0600 socket) and reaches everything. The one rule for "within the subtree" lives here.
 * One read reaches wider: task results (`inTree`) may be read anywhere in the caller's whole
 * tree (below its root job), so a pipeline stage can read the results of its sibling stages;
 * everything else a task may do stays within its own subtree.
 */
import { IrisError } from './errors.js';
import { isWithin } from './names.js';
import type { Mount } from './mounts.js';
import type { Band } from './band.js';

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
  /**
   * The caller job's band: its children inherit it and may ask only for a lower one (admission/band.ts).
   * Absent: interactive.
   */
  band?: Band;
  /** The caller job's named queue (model/queues.ts): its children join it unless they name another. Absent: none. */
  queue?: string;
  /**
   * What confines the caller's attempt: its children inherit it and may not lower it (admission,
   * isolation.ts). Absent: a process task whose job gave no container choices.
   */
  isolation?: CallerIsolation;
}

/**
 * The isolation of a running attempt, as its children inherit it. A container task's is its
 * container as the runtime runs it; a process task's (image null) is only its job's own
 * `--user-in-container` and `--network`, the ceiling of its children's containers.
 */
export interface CallerIsolation {
  /** The image the attempt runs in; null: it runs as a host process (the owner's uid). */
  image: string | null;
  /** Its container user (`UID[:GID]` or a name); null: none given (a process task), or the image's own (kubernetes). */
  user: string | null;
  /** Its container network; null: none given (a process task), or not applied (kubernetes). */
  network: 'bridge' | 'host' | null;
  /** The container runs privileged (its worker's `privileged: true`). */
  privileged: boolean;
  /**
   * The host paths mounted into its container as its job asked (JobSpec.mounts, as launched); a
   * child may mount only what lies within them. Absent or empty: none (a process task, a Pod).
   */
  mounts?: readonly Mount[];
}

/**
 * The socket a request came through: `owner` (`<home>/run/iris.sock`, full rights unless a token
 * is sent) or `task` (`<home>/tasks/iris.sock`, a token is required on every request).
 */
export type Door = 'owner' | 'task';

/** Is `name` (a job, or a task of a job) within the caller's job subtree? The owner (null) reaches everything. */
export function inScope(caller: TaskIdentity | null, name: string): boolean {
  return caller === null || isWithin(name, caller.job);
}

/** Throws 403 unless `name` is within the caller's job subtree; `action` says what was asked ("cancel"). */
export function requireInScope(caller: TaskIdentity | null, name: string, action: string): void {
  if (inScope(caller, name)) return;
  throw new IrisError(
    'forbidden',
    `a task may only ${action} jobs within its own job ${caller!.job}; ${name} is outside it`,
    'name a job under your own job (a relative name such as `kid` means <your job>/kid), or run the command outside ' +
      'the task',
  );
}

/** The root job of `name`'s tree: `/pipe` for `/pipe/train/task-0`. */
export function treeRoot(name: string): string {
  return '/' + name.split('/').filter(Boolean)[0]!;
}

/** Is `name` within the tree (under the root job) of the caller's job? The owner (null) reaches everything. */
export function inTree(caller: TaskIdentity | null, name: string): boolean {
  return caller === null || isWithin(name, treeRoot(caller.job));
}

/** Throws 403 unless `name` is within the caller's tree; `action` says what was asked ("read the results of"). */
export function requireInTree(caller: TaskIdentity | null, name: string, action: string): void {
  if (inTree(caller, name)) return;
  throw new IrisError(
    'forbidden',
    `a task may only ${action} jobs within its own tree ${treeRoot(caller!.job)}; ${name} is outside it`,
    'name a job of your own tree (e.g. a sibling stage), or run the command outside the task',
  );
}

/** Throws 403 for a task caller: the route is the owner's only. */
export function requireOwner(caller: TaskIdentity | null, what: string): void {
  if (caller === null) return;
  throw new IrisError(
    'forbidden',
    `${what} is for the cluster's owner only; a task (${caller.task}) may not do it`,
    'run the command from a shell outside the cluster\'s tasks (docs/api.md, "Doors")',
  );
}

/**
 * What only a running task may do: the call acts for the task attempt that makes it (a result
 * belongs to that attempt, an endpoint lives as long as it runs).
 */
const TASK_ONLY = {
  result: {
    done: 'results can only be set',
    doing: 'setting a result',
    command: 'iris result set KEY VALUE',
    or: ', or write $IRIS_RESULT_FILE there',
  },
  endpoint: {
    done: 'endpoints can only be registered',
    doing: 'registering an endpoint',
    command: 'iris endpoints register NAME ADDRESS',
    or: '',
  },
} as const;

export type TaskOnlyAction = keyof typeof TASK_ONLY;

/**
 * The one refusal of a call only a running task may make, wherever it is found out: by the CLI
 * before it calls (no task token in its environment: client/task-token.ts requireInTask) and by
 * the server when a request came without one (requireTaskCaller).
 */
export function taskOnlyRefusal(action: TaskOnlyAction): IrisError {
  const { done, doing, command, or } = TASK_ONLY[action];
  return new IrisError(
    'forbidden',
    `${done} from inside a running task: ${doing} requires a task token`,
    `run \`${command}\` in a task's command (iris sends the task's token, IRIS_TASK_TOKEN or the file ` +
      `IRIS_TASK_TOKEN_FILE names, in the x-iris-task-token header)${or}`,
  );
}

/** The task behind a call only a running task may make; throws taskOnlyRefusal for the owner (null). */
export function requireTaskCaller<T extends TaskIdentity>(caller: T | null, action: TaskOnlyAction): T {
  if (caller === null) throw taskOnlyRefusal(action);
  return caller;
}

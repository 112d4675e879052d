/**
 * Pure mapping of a Pod's status to the end of its attempt (docs/kubernetes.md, "Pod states").
 * Guarantees:
 * - null while the Pod has not ended (Pending, Running, Unknown): the attempt goes on.
 * - Succeeded / Failed: the container's exit code (`state.terminated.exitCode`); OOMKilled gives `oom` and
 *   the OOM reason (as the Docker runtime words it); 137 after iris's own stop is a SIGKILL.
 * - Infrastructure ends are `lost` (a preemption, not the task's fault): an evicted Pod, a Pod
 *   whose node was lost or shut down, a Pod deleted by someone else (its deletionTimestamp set
 *   while iris did not stop it, or podGone when it vanished), and a container
 *   that never ran because its image cannot be pulled is a failure with that reason.
 */
import { formatBytes } from '../model/resources.js';
import type { TaskExit } from '../runtime/types.js';

/** The part of a Pod iris reads (a V1Pod satisfies it). */
export interface PodObject {
  metadata?: { name?: string; deletionTimestamp?: Date | string | null } | null;
  spec?: { nodeName?: string | null } | null;
  status?: {
    phase?: string | null;
    reason?: string | null;
    message?: string | null;
    containerStatuses?: Array<{
      state?: {
        terminated?: {
          exitCode: number;
          reason?: string | null;
          message?: string | null;
          signal?: number | null;
        } | null;
        waiting?: { reason?: string | null; message?: string | null } | null;
      } | null;
    }> | null;
  } | null;
}

/** Pod-level reasons that mean the infrastructure ended it. */
const LOST_REASONS = new Set([
  'Evicted',
  'NodeLost',
  'Shutdown',
  'NodeShutdown',
  'Terminated',
  'Preempting',
  'UnexpectedAdmissionError',
  'OutOfcpu',
  'OutOfmemory',
  'NodeAffinity',
]);
/** Container waiting reasons after which it will never start. */
const CANNOT_START = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

export interface ExitContext {
  /** iris asked for the Pod's deletion (a stop): a 137 is its SIGKILL after the grace period. */
  stopping: boolean;
  /** The attempt's memory request, named in the OOM reason. */
  memoryBytes: number;
}

/** The end of an attempt from its Pod, or null while it has not ended. */
export function podExit(pod: PodObject, ctx: ExitContext): TaskExit | null {
  const exit = podEnd(pod, ctx);
  // Deleted by someone else (kubectl delete, a node drain's eviction): the task was killed by the infrastructure.
  if (exit && !exit.lost && pod.metadata?.deletionTimestamp && !ctx.stopping)
    return { ...exit, lost: 'pod deleted by someone else' };
  return exit;
}

function podEnd(pod: PodObject, ctx: ExitContext): TaskExit | null {
  const status = pod.status ?? {};
  const terminated = status.containerStatuses?.[0]?.state?.terminated ?? null;
  const waiting = status.containerStatuses?.[0]?.state?.waiting ?? null;
  if (status.phase !== 'Succeeded' && status.phase !== 'Failed') {
    if (waiting?.reason && CANNOT_START.has(waiting.reason)) {
      return {
        exitCode: null,
        signal: null,
        reason: `the container cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
      };
    }
    return null;
  }
  if (status.phase === 'Failed' && status.reason && LOST_REASONS.has(status.reason)) {
    return {
      exitCode: terminated?.exitCode ?? null,
      signal: null,
      lost: `pod ${status.reason.toLowerCase()}${status.message ? `: ${status.message}` : ''}`,
    };
  }
  if (!terminated) {
    if (status.phase === 'Succeeded') return { exitCode: 0, signal: null };
    return {
      exitCode: null,
      signal: null,
      lost: `pod failed without a container exit${status.reason ? ` (${status.reason})` : ''}`,
    };
  }
  if (terminated.reason === 'OOMKilled') {
    return {
      exitCode: null,
      signal: 'SIGKILL',
      oom: true,
      reason: `OOM killed (memory limit ${formatBytes(ctx.memoryBytes, { trimZero: true })})`,
    };
  }
  if (terminated.exitCode === 137 && ctx.stopping) return { exitCode: null, signal: 'SIGKILL' };
  if (terminated.signal) return { exitCode: null, signal: signalName(terminated.signal) };
  return { exitCode: terminated.exitCode, signal: null };
}

/** The exit of an attempt whose Pod disappeared before it ended. */
export function podGone(ctx: { stopping: boolean }, why = 'pod deleted by someone else'): TaskExit {
  return ctx.stopping ? { exitCode: null, signal: 'SIGTERM' } : { exitCode: null, signal: null, lost: why };
}

const SIGNAL_NAMES: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  14: 'SIGALRM',
  15: 'SIGTERM',
};

function signalName(n: number): string {
  return SIGNAL_NAMES[n] ?? `SIG${n}`;
}

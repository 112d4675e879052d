/**
 * How the simulator names a deadlock (docs/simulate.md, "Job trees that wait"). The engine stops
 * when no event is left; a job still there is deadlocked when it, or one of its ancestors, has a
 * task waiting for its subtree: the waiter cannot end before the subtree has, and what it holds
 * keeps the subtree from starting. Each deadlocked job gets one line saying why it cannot go on:
 * a waiting job what it holds and for how many jobs it waits, a pending one the scheduler's reason.
 */
import { describeDevice, formatBytes, formatCpu, type ResourceSpec } from '../model/resources.js';
import type { ActiveJob } from './engine-records.js';
import type { SkippedJob } from './workload.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a waiting task holds: CPU (unless released), memory and devices. */
function holding(resources: ResourceSpec, cpuReleased: boolean): string {
  const parts: string[] = [];
  if (!cpuReleased && resources.cpuMillis > 0) parts.push(`${formatCpu(resources.cpuMillis)} CPU`);
  parts.push(formatBytes(resources.memoryBytes));
  if (resources.device) parts.push(describeDevice(resources.device));
  return parts.join(', ') + (cpuReleased ? ' (its CPU released)' : '');
}

/** `1 task waits for 2 jobs of its subtree, holding 1 CPU, 256MiB` */
export function waitingReason(tasks: number, openJobs: number, resources: ResourceSpec, cpuReleased: boolean): string {
  return (
    `${plural(tasks, 'task')} ${tasks === 1 ? 'waits' : 'wait'} for ${plural(openJobs, 'job')} of its subtree, ` +
    `holding ${holding(resources, cpuReleased)}${tasks === 1 ? '' : ' each'}`
  );
}

/** True when the job or one of its ancestors has a task waiting: it is part of a deadlock. */
function inWaitingTree(job: ActiveJob): boolean {
  for (let p: ActiveJob | null = job; p !== null; p = p.parent) if (p.waiting.length > 0) return true;
  return false;
}

/**
 * The jobs left when the run stopped, each with its line: `unfinished` (after `held`, the
 * pipeline jobs never released) when no task of its tree waits, else `deadlocked`; a pending job
 * carries the scheduler's last reason for it.
 */
export function classifyLeft(
  left: Iterable<ActiveJob>,
  lastReasons: ReadonlyMap<string, string>,
  cpuReleased: boolean,
  held: SkippedJob[],
): { unfinished: SkippedJob[]; deadlocked: SkippedJob[] } {
  const unfinished = held;
  const deadlocked: SkippedJob[] = [];
  for (const job of left) {
    const scheduler = lastReasons.get(job.spec.name) ?? 'never placed by the scheduler';
    if (!inWaitingTree(job)) unfinished.push({ name: job.spec.name, reason: scheduler });
    else if (job.waiting.length === 0) deadlocked.push({ name: job.spec.name, reason: scheduler });
    else
      deadlocked.push({
        name: job.spec.name,
        reason: waitingReason(job.waiting.length, job.openDescendants, job.spec.resources, cpuReleased),
      });
  }
  return { unfinished, deadlocked };
}

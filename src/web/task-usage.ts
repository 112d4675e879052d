/**
 * A task's measured usage over its attempts, for its row of the job page (each attempt's row shows
 * its own): the CPU seconds summed (what the task cost in all), the peak memory the largest of any
 * attempt, as `iris history` totals a run's attempts. Pure; null where no attempt measured it.
 */
import type { TaskInfo } from '../api/types.js';

export function taskUsage(task: Pick<TaskInfo, 'attempts'>): {
  cpuSeconds: number | null;
  peakMemoryBytes: number | null;
} {
  let cpuSeconds: number | null = null;
  let peakMemoryBytes: number | null = null;
  for (const a of task.attempts) {
    if (a.cpuSeconds !== null && a.cpuSeconds !== undefined) cpuSeconds = (cpuSeconds ?? 0) + a.cpuSeconds;
    if (a.peakMemoryBytes !== null && a.peakMemoryBytes !== undefined)
      peakMemoryBytes = Math.max(peakMemoryBytes ?? 0, a.peakMemoryBytes);
  }
  return { cpuSeconds, peakMemoryBytes };
}

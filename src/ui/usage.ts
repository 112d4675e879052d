/**
 * How an attempt's measured usage reads in tables: `cpu 1.2s · peak 45MiB`. CPU seconds under a
 * minute keep one decimal (`cpu 0.3s`); shorter than 0.1 s and a minute or more use the model's
 * short duration style (`cpu 40ms`, `cpu 4m05s`); memory is the model's byte size. An unknown
 * value is `-` (`cpu 0.3s · peak -`); an attempt with nothing measured (running, or a runtime
 * that could not tell) is `-`.
 */
import type { AttemptInfo } from '../api/types.js';
import { formatDuration } from '../model/duration.js';
import { formatBytes } from '../model/resources.js';

export function formatCpuSeconds(seconds: number): string {
  if (seconds >= 0.1 && seconds < 60) return `${seconds.toFixed(1)}s`;
  return formatDuration(seconds * 1000, { style: 'short' });
}

export function formatUsage(attempt: Pick<AttemptInfo, 'cpuSeconds' | 'peakMemoryBytes'>): string {
  const { cpuSeconds, peakMemoryBytes } = attempt;
  if ((cpuSeconds === null || cpuSeconds === undefined) && (peakMemoryBytes === null || peakMemoryBytes === undefined))
    return '-';
  const cpu = cpuSeconds === null || cpuSeconds === undefined ? '-' : formatCpuSeconds(cpuSeconds);
  const peak =
    peakMemoryBytes === null || peakMemoryBytes === undefined ? '-' : formatBytes(peakMemoryBytes, { trimZero: true });
  return `cpu ${cpu} · peak ${peak}`;
}

import { describe, expect, it } from 'vitest';
import type { AttemptInfo } from '../../src/api/types.js';
import { taskUsage } from '../../src/web/task-usage.js';

const attempt = (cpuSeconds: number | null, peakMemoryBytes: number | null): AttemptInfo => ({
  attempt: 0,
  workerId: 'w0',
  state: 'SUCCEEDED',
  exitCode: 0,
  reason: null,
  startedAt: 0,
  finishedAt: 1,
  logCutBytes: null,
  cpuSeconds,
  peakMemoryBytes,
});

describe("a task's usage over its attempts", () => {
  it('sums the CPU seconds and keeps the largest peak', () => {
    expect(taskUsage({ attempts: [attempt(0, 524_288)] })).toEqual({ cpuSeconds: 0, peakMemoryBytes: 524_288 });
    expect(taskUsage({ attempts: [attempt(1.5, 100), attempt(2, 300), attempt(0.5, 200)] })).toEqual({
      cpuSeconds: 4,
      peakMemoryBytes: 300,
    });
  });

  it('is unknown where no attempt measured it, and skips the attempts that did not', () => {
    expect(taskUsage({ attempts: [] })).toEqual({ cpuSeconds: null, peakMemoryBytes: null });
    expect(taskUsage({ attempts: [attempt(null, null)] })).toEqual({ cpuSeconds: null, peakMemoryBytes: null });
    expect(taskUsage({ attempts: [attempt(null, 50), attempt(3, null)] })).toEqual({
      cpuSeconds: 3,
      peakMemoryBytes: 50,
    });
  });
});

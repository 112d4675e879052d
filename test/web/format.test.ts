import { describe, expect, it } from 'vitest';
import {
  axisTimes,
  legendTime,
  formatAge,
  formatBytes,
  formatNumber,
  formatReason,
  formatTime,
  stateClass,
  taskCounts,
} from '../../src/web/format.js';

describe('format', () => {
  it('writes ages, bytes and numbers', () => {
    expect(formatAge(null)).toBe('-');
    expect(formatAge(45_000)).toBe('45s');
    expect(formatAge(-5)).toBe('0s');
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(256 * 1024 ** 2)).toBe('256 MiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
    expect(formatBytes(null)).toBe('-');
    expect(formatNumber(0.3333333)).toBe('0.33');
    expect(formatNumber(2)).toBe('2');
  });

  it('writes an instant as a clock time today and with its date before', () => {
    const now = new Date(2026, 10, 30, 14, 0, 0).getTime();
    expect(formatTime(new Date(2026, 10, 30, 9, 5, 7).getTime(), now)).toBe('09:05:07');
    expect(formatTime(new Date(2026, 10, 29, 9, 5, 7).getTime(), now)).toBe('2026-11-29 09:05');
    expect(formatTime(null, now)).toBe('-');
  });

  it("renders a reason's instant placeholders in local time", () => {
    const now = new Date(2026, 10, 30, 14, 0, 0).getTime();
    const at = new Date(2026, 10, 30, 15, 30, 0).getTime();
    expect(formatReason(`reserved to start at <t:${at}>`, now)).toBe('reserved to start at 15:30:00');
    expect(formatReason(null, now)).toBe('');
  });

  it('gives every state a colour family (the text says the state)', () => {
    expect(stateClass('RUNNING')).toBe('running');
    expect(stateClass('OUT_OF_MEMORY')).toBe('failed');
    expect(stateClass('SUCCEEDED')).toBe('ok');
    expect(stateClass('KILLED')).toBe('stopped');
    expect(stateClass('SOMETHING_NEW')).toBe('other');
  });

  it('counts running (with assigned), pending and ended tasks', () => {
    expect(taskCounts({ tasks: { total: 6, byState: { RUNNING: 2, ASSIGNED: 1, PENDING: 2, FAILED: 1 } } })).toEqual({
      running: 3,
      pending: 2,
      done: 1,
    });
  });
});

describe("the plots' times", () => {
  it('label the axis in 24 hours, with seconds only when the ticks are closer than a minute', () => {
    const at = (h: number, m: number, sec = 0) => new Date(2026, 10, 30, h, m, sec).getTime() / 1000;
    expect(axisTimes([at(3, 24), at(15, 25)], 60)).toEqual(['03:24', '15:25']);
    expect(axisTimes([at(3, 40, 10), at(3, 40, 20)], 10)).toEqual(['03:40:10', '03:40:20']);
    expect(legendTime(at(15, 25, 7), at(16, 0) * 1000)).toBe('15:25:07');
    expect(legendTime(null, 0)).toBe('--');
  });
});

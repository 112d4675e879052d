import { describe, expect, it } from 'vitest';
import { formatAge, formatCores, formatDuration, parseSince } from '../../src/ui/format.js';
import { parseDuration } from '../../src/model/duration.js';
import { IrisError } from '../../src/model/errors.js';
import { NOW } from './fixtures.js';

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [850, '850ms'],
    [12_300, '12s'],
    [245_000, '4m05s'],
    [2 * 3_600_000 + 3 * 60_000, '2h03m'],
    [3 * 86_400_000 + 4 * 3_600_000, '3d4h'],
    [-1, '-'],
  ])('%d ms -> %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it('ages are relative to now and unknown times are a dash', () => {
    expect(formatAge(NOW - 5_000, NOW)).toBe('5s');
    expect(formatAge(null, NOW)).toBe('-');
    expect(formatAge(NOW + 5_000, NOW)).toBe('0ms');
  });

  it('formats cores without float noise', () => {
    expect(formatCores(500)).toBe('0.5');
    expect(formatCores(2000)).toBe('2');
    expect(formatCores(1250)).toBe('1.25');
  });
});

describe('parseSince', () => {
  it('takes durations ago and ISO times', () => {
    expect(parseSince('10m', NOW)).toBe(NOW - 600_000);
    expect(parseSince('1h30m', NOW)).toBe(NOW - 5_400_000);
    expect(parseSince('2025-01-02T11:00:00Z', NOW)).toBe(NOW - 3_600_000);
  });

  it('rejects anything else with a usage error', () => {
    expect(() => parseSince('yesterday', NOW)).toThrow(IrisError);
    expect(() => parseDuration('10 minutes')).toThrow(/invalid duration/);
  });
});

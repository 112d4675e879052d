import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/model/duration.js';
import { IrisError } from '../../src/model/errors.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['500ms', 500],
    ['45', 45_000],
    ['0.5', 500],
    ['1.5h', 5_400_000],
    ['1h 30m', 5_400_000],
    ['1H30M', 5_400_000],
    ['2d3h4m5s6ms', 2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5000 + 6],
    [' 10s ', 10_000],
    [30, 30_000],
  ])('%j -> %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', '   ', 'abc', '10x', '-5s', '1m1h', '10s10s', 's', '1.2.3s', 'ms', '5m s', '1e3'])(
    'rejects %j',
    (input) => {
      let error: unknown;
      try {
        parseDuration(input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(IrisError);
      expect((error as IrisError).code).toBe('invalid_argument');
      expect((error as IrisError).message).toMatch(/invalid duration/);
      expect((error as IrisError).hint).toMatch(/1h30m/);
    },
  );

  it('rejects negative and non-finite numbers', () => {
    expect(() => parseDuration(-1)).toThrow(/invalid duration/);
    expect(() => parseDuration(Number.NaN)).toThrow(/invalid duration/);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [45_000, '45s'],
    [5_400_000, '1h30m'],
    [172_800_000, '2d'],
    [60_500, '1m500ms'],
    [-90_000, '-1m30s'],
  ])('%d -> %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 999, 1000, 61_001, 3_600_000, 90_061_001, 86_400_000 * 9 + 7]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});

describe('one parser and formatter for every caller', () => {
  it('the short style of tables and ages', () => {
    expect(formatDuration(850, { style: 'short' })).toBe('850ms');
    expect(formatDuration(245_000, { style: 'short' })).toBe('4m05s');
    expect(formatDuration(2 * 3_600_000 + 3 * 60_000, { style: 'short' })).toBe('2h03m');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000, { style: 'short' })).toBe('3d4h');
    expect(formatDuration(86_400_000, { style: 'short' })).toBe('1d');
    expect(formatDuration(-1, { style: 'short' })).toBe('-');
    expect(formatDuration(245_000)).toBe('4m5s');
  });

  it('short output parses back to within its precision', () => {
    for (const ms of [850, 12_000, 245_000, 7_380_000])
      expect(parseDuration(formatDuration(ms, { style: 'short' }))).toBe(ms);
  });

  it('names the value as its caller does: duration (config, API) or time (workload files)', () => {
    expect(() => parseDuration('soon')).toThrow('invalid duration "soon"');
    expect(() => parseDuration('soon', { what: 'time' })).toThrow('invalid time "soon"');
    expect(() => parseDuration(-1)).toThrow('invalid duration -1: must not be negative');
  });
});

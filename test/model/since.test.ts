/**
 * The one parser of "from when" (src/model/since.ts): `--since`/`--until` of `iris logs` and
 * `iris history`, and the logs route's `since`. Pure, with `now` an input.
 */
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/model/duration.js';
import { IrisError } from '../../src/model/errors.js';
import { parseSince } from '../../src/model/since.js';
import { refusal } from '../helpers/refusal.js';

const NOW = Date.UTC(2025, 0, 2, 12, 0, 0);

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

  it.each([
    // epoch milliseconds: 10 or more digits (what the client sends)
    ['1700000000000', 1_700_000_000_000],
    ['1000000000', 1_000_000_000],
    [' 1735819200000 ', 1_735_819_200_000],
    // a duration ago, by the model's duration parser: any case, spaces between parts, bare seconds
    ['500ms', NOW - 500],
    ['90s', NOW - 90_000],
    ['1.5h', NOW - 5_400_000],
    ['2d', NOW - 172_800_000],
    ['10M', NOW - 600_000],
    ['1h 30m', NOW - 5_400_000],
    ['300', NOW - 300_000],
    ['0', NOW],
    // an instant Date.parse reads
    ['2025-01-02', Date.UTC(2025, 0, 2)],
    ['2025-01-02T10:00:00+02:00', Date.UTC(2025, 0, 2, 8)],
    ['1 March 2025 10:00 UTC', Date.UTC(2025, 2, 1, 10)],
  ])('%j is %d', (input, expected) => {
    expect(parseSince(input, NOW)).toBe(expected);
  });

  it.each([
    ['yesterday', '--since', 'invalid --since "yesterday"'],
    ['10m garbage', '--until', 'invalid --until "10m garbage"'],
    ['', '--since', 'invalid --since ""'],
    ['-5m', 'query parameter "since"', 'invalid query parameter "since" "-5m"'],
  ])('refuses %j as %s with exit 2 and the three forms as a hint', (input, what, message) => {
    const error = refusal(() => parseSince(input, NOW, what));
    expect(error.code).toBe('invalid_argument');
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(message);
    expect(error.hint).toMatch(/duration such as 10m.*ISO time.*epoch milliseconds/);
  });
});

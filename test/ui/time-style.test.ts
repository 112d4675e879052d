/** The one time style of the CLI: instants in the local zone, log prefixes, and ISO 8601 in --json. */
import { describe, expect, it } from 'vitest';
import { instantMark } from '../../src/model/reason-instants.js';
import { formatClock, formatInstant, formatReason } from '../../src/ui/format.js';
import { jsonText } from '../../src/ui/json.js';
import { formatStart, renderEstimate, renderQueue } from '../../src/ui/queue.js';

// Local times, so the expectations hold in any time zone.
const now = new Date(2025, 0, 2, 12, 0, 0).getTime();
const laterToday = new Date(2025, 0, 2, 14, 3, 20, 45).getTime();
const tomorrow = new Date(2025, 0, 3, 9, 5, 0).getTime();

describe('instants', () => {
  it('are HH:MM:SS on the same local day, YYYY-MM-DD HH:MM on another', () => {
    expect(formatInstant(laterToday, now)).toBe('14:03:20');
    expect(formatInstant(tomorrow, now)).toBe('2025-01-03 09:05');
    expect(formatInstant(new Date(2024, 11, 31, 23, 59, 59).getTime(), now)).toBe('2024-12-31 23:59');
  });

  it('log prefixes keep milliseconds; with the date they name the day too', () => {
    expect(formatClock(laterToday)).toBe('14:03:20.045');
    expect(formatClock(laterToday, { date: true })).toBe('2025-01-02 14:03:20.045');
  });

  it('reserved starts and estimates use the same style as every other instant', () => {
    expect(formatStart(laterToday, now)).toBe('14:03:20 (in 2h03m)');
    expect(formatStart(tomorrow, now)).toBe('2025-01-03 09:05 (in 21h05m)');
    expect(formatStart(now - 1, now)).toBe('now');
    expect(formatStart(null, now)).toBe('-');
    const estimate = {
      name: '/probe',
      tasks: 1,
      start: laterToday,
      now,
      reason: 'need 2 CPU',
      policy: 'easy' as const,
    };
    expect(renderEstimate(estimate)).toMatch(
      /^\/probe \(1 task\): would start at 14:03:20 \(in 2h03m\) under policy easy\n/,
    );
  });
});

describe('--json text', () => {
  const at = Date.UTC(2025, 0, 2, 12, 0, 0, 5);
  const iso = '2025-01-02T12:00:00.005Z';

  it('prints instants as ISO 8601 strings and leaves durations and other numbers alone', () => {
    const value = {
      submittedAt: at,
      startedAt: null,
      finishedAt: at,
      timeoutMs: 60_000,
      reservedStart: at,
      start: at,
      now: at,
      time: at,
      attempts: [{ attempt: 0, startedAt: at, exitCode: 1 }],
      env: { time: '5' },
      At: 3,
      pid: 123,
    };
    expect(JSON.parse(jsonText(value))).toEqual({
      submittedAt: iso,
      startedAt: null,
      finishedAt: iso,
      timeoutMs: 60_000,
      reservedStart: iso,
      start: iso,
      now: iso,
      time: iso,
      attempts: [{ attempt: 0, startedAt: iso, exitCode: 1 }],
      env: { time: '5' },
      At: 3,
      pid: 123,
    });
  });

  it('indents documents, prints NDJSON lines on one line, and can leave instants as numbers', () => {
    expect(jsonText({ time: at }, { indent: 2 })).toBe(`{\n  "time": "${iso}"\n}`);
    expect(jsonText({ time: at })).toBe(`{"time":"${iso}"}`);
    expect(jsonText({ time: 12.5, start: 3 }, { instants: false })).toBe('{"time":12.5,"start":3}');
  });
});

describe('instants inside reasons the cluster wrote', () => {
  const reason = `need 4 CPU, largest free worker has 0; reserved to start at ${instantMark(laterToday)}`;

  it('read in the local time style in human output', () => {
    expect(formatReason(reason, now)).toBe('need 4 CPU, largest free worker has 0; reserved to start at 14:03:20');
    expect(formatReason(`starting now would delay the reservation of /big at ${instantMark(tomorrow)}`, now)).toBe(
      'starting now would delay the reservation of /big at 2025-01-03 09:05',
    );
    const big = { position: 1, job: '/big', user: 'u', depth: 1, pendingTasks: 1, submittedAt: now, timeLimitMs: null };
    const jobs = [{ ...big, reason, reservedStart: laterToday }];
    const queue = { policy: 'easy', queueDepth: 32, reservationDepth: 0, jobs };
    expect(renderQueue(queue, now)).toMatch(/reserved to start at 14:03:20$/m);
    const estimate = { name: '/probe', tasks: 1, start: tomorrow, now, reason, policy: 'easy' as const };
    expect(renderEstimate(estimate)).toMatch(/\n {2}why: need 4 CPU, .*; reserved to start at 14:03:20\n/);
  });

  it('as ISO 8601 in --json, as the number where instants stay numbers', () => {
    const at = Date.UTC(2025, 0, 2, 12, 0, 0, 5);
    const marked = { reason: `reserved to start at ${instantMark(at)}`, note: instantMark(at) };
    const iso = 'reserved to start at 2025-01-02T12:00:00.005Z';
    expect(JSON.parse(jsonText(marked))).toEqual({ reason: iso, note: `<t:${at}>` });
    expect(JSON.parse(jsonText({ reason: `reserved to start at ${instantMark(120)}` }, { instants: false }))).toEqual({
      reason: 'reserved to start at 120',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { RunInfo } from '../../src/api/types.js';
import { formatExit, formatJoules, renderHistory } from '../../src/ui/history.js';
import { NOW } from './fixtures.js';
import { joined } from '../helpers/regex.js';

function run(extra: Partial<RunInfo>): RunInfo {
  return {
    run: 1,
    name: '/train',
    user: 'alice',
    band: 'interactive',
    state: 'SUCCEEDED',
    reason: null,
    archived: false,
    submittedAt: NOW - 70_000,
    startedAt: NOW - 65_000,
    finishedAt: NOW - 5_000,
    exitCode: 0,
    cpuSeconds: null,
    peakMemoryBytes: null,
    attempts: [],
    ...extra,
  };
}

describe('iris history renderer', () => {
  it('shows one line per run with summed CPU, peak memory, and - where nothing was measured', () => {
    const attempt = {
      task: '/train/task-0',
      attempt: 0,
      workerId: 'w0',
      state: 'FAILED' as const,
      exitCode: 137,
      reason: 'OOM killed',
      startedAt: NOW - 65_000,
      finishedAt: NOW - 5_000,
    };
    const runs = [
      run({
        run: 7,
        state: 'FAILED',
        exitCode: 137,
        reason: 'task /train/task-0 failed (exit 137)',
        cpuSeconds: 245,
        peakMemoryBytes: 3 * 1024 ** 3,
        attempts: [{ ...attempt, cpuSeconds: 245, peakMemoryBytes: 3 * 1024 ** 3 }],
      }),
      run({ run: 3, archived: true, band: 'batch' }),
    ];
    const lines = renderHistory(runs, { attempts: false, now: NOW }).split('\n');
    expect(lines[0]).toMatch(
      /^RUN\s+NAME\s+USER\s+BAND\s+STATE\s+START\s+END\s+ELAPSED\s+EXIT\s+CPU\s+MAXMEM\s+REASON$/,
    );
    expect(lines[1]).toMatch(
      joined(
        /^\s*7\s+\/train\s+alice\s+interactive\s+FAILED\s+\S+\s+\S+\s+1m00s\s+/,
        /137 \(SIGKILL\)\s+4m05s\s+3GiB\s+task \/train\/task-0 failed/,
      ),
    );
    expect(lines[2]).toMatch(/^\s*3\s+\/train\s+alice\s+batch\s+SUCCEEDED\s+\S+\s+\S+\s+1m00s\s+0\s+-\s+-$/);
    // Instants in the one time style: the clock time on the same day.
    expect(lines[2]).toMatch(/SUCCEEDED\s+\d\d:\d\d:\d\d\s+\d\d:\d\d:\d\d\s/);
    const perAttempt = renderHistory(runs, { attempts: true, now: NOW }).split('\n');
    expect(perAttempt).toHaveLength(2);
    expect(perAttempt[1]).toMatch(/^\s*7\s+\/train\/task-0\[0\]\s+alice\s+FAILED\s.*OOM killed$/);
  });

  it('says so when nothing matched', () => {
    expect(renderHistory([], { attempts: false, now: NOW })).toBe('no runs');
  });

  it('names the signal of an exit code above 128', () => {
    expect([formatExit(null), formatExit(0), formatExit(3), formatExit(143)]).toEqual(['-', '0', '3', '143 (SIGTERM)']);
  });
});

describe('iris history energy', () => {
  it('formats joules with a unit and - for no estimate', () => {
    expect([850.4, 12_400, 3_200_000, 250_000, null].map(formatJoules)).toEqual([
      '850J',
      '12.4kJ',
      '3.2MJ',
      '250kJ',
      '-',
    ]);
  });

  it('shows an ENERGY column only when some run has an estimate', () => {
    expect(renderHistory([run({})], { attempts: false, now: NOW })).not.toContain('ENERGY');
    const text = renderHistory([run({ energyJoules: 18_000 }), run({ run: 2, energyJoules: null })], {
      attempts: false,
      now: NOW,
    });
    expect(text).toContain('ENERGY');
    expect(text).toContain('18.0kJ');
  });
});

describe('the example of docs/cli.md, "iris history"', () => {
  it('is what the renderer prints for those runs, instants of another day as YYYY-MM-DD HH:MM', () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('\n## iris history\n'));
    const block = /```\n(RUN {2}NAME[^`]*?)\n```/.exec(section)?.[1];
    expect(block, 'the example table of iris history').toBeDefined();
    const at = (day: number, h: number, m: number, s: number) => new Date(2026, 10, day, h, m, s).getTime();
    const GiB = 1024 ** 3;
    const runs = [
      run({
        run: 9,
        state: 'FAILED',
        reason: 'task /train/task-0 failed (exit 3)',
        startedAt: at(23, 22, 33, 8),
        finishedAt: at(23, 22, 40, 8),
        exitCode: 3,
        cpuSeconds: 411,
        peakMemoryBytes: 1.2 * GiB,
      }),
      run({
        run: 3,
        startedAt: at(23, 21, 2, 17),
        finishedAt: at(23, 21, 9, 40),
        exitCode: 0,
        cpuSeconds: 430,
        peakMemoryBytes: 1.1 * GiB,
      }),
    ];
    const text = renderHistory(runs, { attempts: false, now: at(24, 12, 0, 0) });
    expect(text.split('\n').map((l) => l.trimEnd())).toEqual(block!.split('\n').map((l) => l.trimEnd()));
  });
});

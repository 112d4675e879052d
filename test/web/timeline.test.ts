import { describe, expect, it } from 'vitest';
import { ganttRows, type TimelineAttempt, ticks, windowOf } from '../../src/web/timeline.js';

const attempt = (task: string, worker: string, start: number, end: number | null): TimelineAttempt => ({
  task,
  job: task.replace(/\/task-\d+$/, ''),
  attempt: 0,
  worker,
  start,
  end,
  state: end === null ? 'RUNNING' : 'SUCCEEDED',
});

describe('ganttRows', () => {
  it('gives one row per worker, stacks overlapping attempts in lanes, clips to the window', () => {
    const rows = ganttRows(
      {
        from: 100,
        to: 1000,
        attempts: [
          attempt('/a/task-0', 'w1', 50, 300),
          attempt('/a/task-1', 'w1', 200, 400),
          attempt('/a/task-2', 'w1', 300, null),
          attempt('/b/task-0', 'w9', 500, 600),
        ],
      },
      ['w0', 'w1'],
      900,
    );
    expect(rows.map((r) => [r.worker, r.lanes])).toEqual([
      ['w0', 1],
      ['w1', 2],
      ['w9', 1],
    ]);
    const w1 = rows[1].bars.map((b) => [b.attempt.task, b.lane, b.start, b.end]);
    expect(w1).toEqual([
      ['/a/task-0', 0, 100, 300],
      ['/a/task-1', 1, 200, 400],
      ['/a/task-2', 0, 300, 900],
    ]);
  });

  it('never overlaps two bars of one lane', () => {
    const attempts = Array.from({ length: 40 }, (_, i) =>
      attempt(`/j/task-${i}`, 'w', (i * 37) % 500, ((i * 37) % 500) + 120),
    );
    const [row] = ganttRows({ from: 0, to: 1000, attempts }, ['w'], 1000);
    for (let lane = 0; lane < row.lanes; lane++) {
      const bars = row.bars.filter((b) => b.lane === lane).sort((a, b) => a.start - b.start);
      for (let i = 1; i < bars.length; i++) expect(bars[i].start).toBeGreaterThanOrEqual(bars[i - 1].end);
    }
    expect(row.bars).toHaveLength(40);
  });
});

describe('ticks', () => {
  it('gives 4 to 12 round ticks over an hour', () => {
    const from = Date.UTC(2026, 0, 1, 10, 3);
    const out = ticks(from, from + 3_600_000);
    expect(out.length).toBeGreaterThanOrEqual(4);
    expect(out.length).toBeLessThanOrEqual(12);
    for (const t of out) expect(t % 300_000).toBe(0);
  });
});

describe('a narrow chart', () => {
  it('asks for fewer ticks and gets at most that many, still round', () => {
    const from = Date.UTC(2026, 0, 1, 10, 3);
    for (const most of [2, 3, 4, 6]) {
      const out = ticks(from, from + 3_600_000, most);
      expect(out.length).toBeGreaterThan(0);
      expect(out.length).toBeLessThanOrEqual(most);
      for (const t of out) expect(t % 300_000).toBe(0);
    }
  });
});

describe('the window', () => {
  it('runs to now when the clock has passed the answer, and never ends before its start', () => {
    expect(windowOf({ from: 1000, to: 5000 }, 9000)).toEqual({ from: 1000, to: 9000 });
    expect(windowOf({ from: 1000, to: 5000 }, 3000)).toEqual({ from: 1000, to: 5000 });
    expect(windowOf({ from: 1000, to: 1000 }, 0)).toEqual({ from: 1000, to: 1001 });
  });
});

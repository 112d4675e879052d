import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandItem, LineBuffer, lineMatches } from '../../src/web/log-buffer.js';

describe('expandItem', () => {
  it('expands a batch into lines with their run-length encoded times', () => {
    const lines = expandItem({
      task: '/t/task-0',
      attempt: 1,
      stream: 'stderr',
      times: [100, 2, 105, 1],
      text: 'a\nb\nc',
    });
    expect(lines.map((l) => [l.time, l.text])).toEqual([
      [100, 'a'],
      [100, 'b'],
      [105, 'c'],
    ]);
    expect(lines.every((l) => l.task === '/t/task-0' && l.attempt === 1 && l.stream === 'stderr')).toBe(true);
  });

  it("passes an older cluster's single line through", () => {
    const line = { time: 5, task: '/t/task-0', attempt: 0, stream: 'stdout' as const, text: 'x' };
    expect(expandItem(line)).toEqual([line]);
  });

  it('keeps text whose counts fall short, at the last time', () => {
    const lines = expandItem({ task: '/t', attempt: 0, stream: 'stdout', times: [7, 1], text: 'a\nb' });
    expect(lines.map((l) => [l.time, l.text])).toEqual([
      [7, 'a'],
      [7, 'b'],
    ]);
  });
});

describe('LineBuffer', () => {
  it('drops the oldest lines past its limit and counts them', () => {
    const buffer = new LineBuffer<number>(3);
    expect(buffer.push([1, 2])).toBe(0);
    expect(buffer.push([3, 4, 5])).toBe(2);
    expect(buffer.toArray()).toEqual([3, 4, 5]);
    expect(buffer.dropped).toBe(2);
    buffer.clear();
    expect(buffer.size).toBe(0);
    expect(buffer.dropped).toBe(0);
  });

  it('oldest(n) names the lines a push of n past the limit would drop', () => {
    const buffer = new LineBuffer<number>(4);
    buffer.push([1, 2, 3, 4]);
    expect(buffer.oldest(2)).toEqual([1, 2]);
    expect(buffer.oldest(0)).toEqual([]);
    expect(buffer.oldest(-3)).toEqual([]);
    buffer.push([5, 6]);
    expect(buffer.oldest(9)).toEqual([3, 4, 5, 6]);
  });

  it('always holds the last `limit` lines pushed (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.array(fc.integer(), { maxLength: 30 }), { maxLength: 20 }),
        (limit, pushes) => {
          const buffer = new LineBuffer<number>(limit);
          const all: number[] = [];
          for (const chunk of pushes) {
            buffer.push(chunk);
            all.push(...chunk);
            expect(buffer.size).toBeLessThanOrEqual(limit);
          }
          expect(buffer.toArray()).toEqual(all.slice(-limit));
          expect(buffer.dropped).toBe(Math.max(0, all.length - limit));
        },
      ),
    );
  });
});

describe('lineMatches', () => {
  const line = { time: 0, task: '/train/task-2', attempt: 0, stream: 'stdout' as const, text: 'Loss went UP' };
  it('matches text or task, ignoring case; every line for an empty search', () => {
    expect(lineMatches(line, 'loss')).toBe(true);
    expect(lineMatches(line, 'task-2')).toBe(true);
    expect(lineMatches(line, 'down')).toBe(false);
    expect(lineMatches(line, '')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { displayValue, renderResults } from '../../src/ui/results.js';

describe('iris results table', () => {
  it('one line per task and key; values on one line, cut at 60 characters with …', () => {
    const long = 'x'.repeat(100);
    const text = renderResults({
      job: '/train',
      run: 4,
      results: [
        { task: '/train/task-0', index: 0, key: 'checkpoint', value: '/ckpt/1', attempt: 0, setAt: 1 },
        { task: '/train/task-1', index: 1, key: 'notes', value: 'a\nb\tc', attempt: 2, setAt: 1 },
        { task: '/train/task-1', index: 1, key: 'blob', value: long, attempt: 2, setAt: 1 },
      ],
    });
    expect(text.split('\n')).toEqual([
      'TASK    KEY         VALUE',
      'task-0  checkpoint  /ckpt/1',
      'task-1  notes       a b c',
      `task-1  blob        ${'x'.repeat(59)}…`,
    ]);
  });

  it('says so when the run has none', () => {
    expect(renderResults({ job: '/train', run: 4, results: [] })).toBe('no results for /train@4');
  });

  it('cuts by characters, not bytes', () => {
    expect(displayValue('é'.repeat(60))).toBe('é'.repeat(60));
    expect(displayValue('é'.repeat(61))).toBe('é'.repeat(59) + '…');
  });

  it('escapes control characters, and never cuts inside an escape', () => {
    expect(displayValue('\u001b[2J\u001b]0;pwned\u0007ok')).toBe('\\x1b[2J\\x1b]0;pwned\\x07ok');
    expect(displayValue('\u009b'.repeat(20))).toBe('\\x9b'.repeat(14) + '…');
    const text = renderResults({
      job: '/t',
      run: 1,
      results: [{ task: '/t/task-0', index: 0, key: 'k', value: '\u001b[31mred', attempt: 0, setAt: 1 }],
    });
    expect(text).toBe('TASK    KEY  VALUE\ntask-0  k    \\x1b[31mred');
  });
});

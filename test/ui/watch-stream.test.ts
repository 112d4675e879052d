import { describe, expect, it } from 'vitest';
import { formatStateChange, stateChange } from '../../src/ui/watch/stream.js';
import { formatClock } from '../../src/ui/format.js';
import { NOW } from './fixtures.js';

describe('watch --stream lines', () => {
  it('formats a change as TIME NAME OLD → NEW (REASON), a new entity as (new)', () => {
    const failed = stateChange(
      {
        type: 'job',
        name: '/train',
        previous: 'RUNNING',
        state: 'FAILED',
        reason: 'task /train/task-0 failed (exit 3)',
        time: NOW,
      },
      false,
    )!;
    expect(formatStateChange(failed)).toBe(
      `${formatClock(NOW)}  /train  RUNNING → FAILED  (task /train/task-0 failed (exit 3))`,
    );
    const fresh = stateChange({ type: 'task', name: '/train/task-0', state: 'PENDING', time: NOW }, false)!;
    expect(formatStateChange(fresh)).toBe(`${formatClock(NOW)}  /train/task-0  (new) → PENDING`);
  });

  it('shows the opening listing without an arrow and marks it initial in JSON', () => {
    const listed = stateChange({ type: 'job', name: '/train', state: 'RUNNING', time: NOW }, true)!;
    expect(formatStateChange(listed)).toBe(`${formatClock(NOW)}  /train  RUNNING`);
    expect(listed).toEqual({
      time: new Date(NOW).toISOString(),
      type: 'job',
      name: '/train',
      previous: null,
      state: 'RUNNING',
      reason: null,
      initial: true,
    });
  });

  it('leaves out what is not a state change of a job or task', () => {
    expect(
      stateChange(
        { type: 'job', name: '/a', previous: 'PENDING', state: 'PENDING', reason: 'need 1 CPU', time: NOW },
        false,
      ),
    ).toBeNull();
    expect(stateChange({ type: 'task', name: '/a/task-0', attempt: 0, state: 'RUNNING', time: NOW }, false)).toBeNull();
    expect(
      stateChange({ type: 'worker', name: 'w0', previous: 'READY', state: 'DRAINED', time: NOW }, false),
    ).toBeNull();
    expect(stateChange({ type: 'cluster', name: '/', state: 'SYNCED', time: NOW }, true)).toBeNull();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '../../src/model/states.js';
import type { DependencyCondition } from '../../src/model/types.js';
import { afterStatus, afterWords, cancelQuestion, plural, waitingWords } from '../../src/web/words.js';

describe('a dependency in words', () => {
  it('says what each condition waits for', () => {
    expect(afterWords({ job: '/tree2', condition: 'ok' })).toBe('after /tree2 succeeds');
    expect(afterWords({ job: '/tree2', condition: 'any' })).toBe('after /tree2 ends');
    expect(afterWords({ job: '/tree2', condition: 'failed' })).toBe('after /tree2 fails');
  });

  it('says whether it is met yet', () => {
    const dep = { job: '/tree2', condition: 'ok' as const };
    expect(afterStatus(dep, 'RUNNING')).toEqual({ outcome: 'waiting', text: 'not met yet: /tree2 is RUNNING' });
    expect(afterStatus(dep, 'SUCCEEDED')).toEqual({ outcome: 'met', text: 'met: /tree2 ended SUCCEEDED' });
    expect(afterStatus(dep, 'FAILED')).toEqual({ outcome: 'never', text: 'never met: /tree2 ended FAILED' });
    expect(afterStatus({ job: '/a', condition: 'failed' }, 'KILLED').outcome).toBe('met');
    expect(afterStatus(dep, undefined)).toEqual({ outcome: null, text: '' });
    expect(afterStatus(dep, null).outcome).toBe('met');
  });

  it('waits exactly while its job has not ended, for every condition and state (property)', () => {
    const conditions: DependencyCondition[] = ['ok', 'any', 'failed'];
    fc.assert(
      fc.property(fc.constantFrom(...conditions), fc.constantFrom(...JOB_STATES), (condition, state) => {
        const { outcome, text } = afterStatus({ job: '/x', condition }, state);
        expect(outcome === 'waiting').toBe(state === 'PENDING' || state === 'RUNNING');
        expect(text).toContain(state);
      }),
    );
  });
});

describe('the pending line', () => {
  it('does not say waiting twice', () => {
    expect(waitingWords('waiting for /tree2 (RUNNING)')).toEqual({ label: null, text: 'Waiting for /tree2 (RUNNING)' });
    expect(waitingWords('need 2 CPU')).toEqual({ label: 'waiting:', text: 'need 2 CPU' });
    expect(waitingWords('')).toEqual({ label: 'waiting:', text: 'to be scheduled' });
  });
});

describe('counts and questions', () => {
  it('writes one line, two lines', () => {
    expect(plural(1, 'line')).toBe('1 line');
    expect(plural(0, 'line')).toBe('0 lines');
    expect(plural(2, 'line')).toBe('2 lines');
  });

  it('asks before a cancel: a job with its subtree, a task alone', () => {
    expect(cancelQuestion('/tree')).toBe('Cancel /tree and every job below it?');
    expect(cancelQuestion('/tree/task-3')).toBe('Cancel task /tree/task-3?');
  });
});

import { describe, expect, it } from 'vitest';
import { IrisError } from '../../src/model/errors.js';
import { parseJobName, parseJobRef, runRef } from '../../src/model/names.js';

describe('NAME@RUN references', () => {
  it('splits a job or task reference into name, run and task', () => {
    expect(parseJobRef('train')).toEqual({ job: '/train', run: null, task: null });
    expect(parseJobRef('/train/eval/task-2')).toEqual({ job: '/train/eval', run: null, task: 2 });
    expect(parseJobRef('train@3')).toEqual({ job: '/train', run: 3, task: null });
    expect(parseJobRef('/train/eval@12/task-0')).toEqual({ job: '/train/eval', run: 12, task: 0 });
    expect(runRef('/train', 3)).toBe('/train@3');
  });

  it.each(['train@', 'train@0', 'train@x', 'train@3@4', 'train@3/eval', 'train@-1', '@3'])(
    'refuses %j as invalid',
    (input) => {
      let error: unknown;
      try {
        parseJobRef(input);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(IrisError);
      expect((error as IrisError).code).toBe('invalid_argument');
    },
  );

  it('keeps "@" out of job names, so the split is never ambiguous', () => {
    expect(() => parseJobName('train@3')).toThrow(/"@" is not allowed in a job name/);
  });
});

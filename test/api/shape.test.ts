/** The answer-shape checker (src/api/shape.ts) and a few route shapes (src/api/responses.ts) on plain values. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  array,
  describeMismatch,
  either,
  formatPath,
  nullable,
  number,
  object,
  oneOf,
  optional,
  record,
  string,
  type Mismatch,
} from '../../src/api/shape.js';
import { healthAnswer, jobsAnswer, submitAnswer } from '../../src/api/responses.js';

const said = (m: Mismatch | null): string | null => (m === null ? null : describeMismatch(m));

describe('shape combinators', () => {
  const point = object<{ x: number; label?: string; tags: string[]; meta: Record<string, number> | null }>({
    x: number,
    label: optional(string),
    tags: array(string),
    meta: nullable(record(number)),
  });

  it('accepts what fits, extra keys included', () => {
    expect(point({ x: 1, tags: [], meta: null })).toBeNull();
    expect(point({ x: 1, label: 'a', tags: ['t'], meta: { a: 1 }, extra: true })).toBeNull();
  });

  it('names the first field at fault with its path', () => {
    expect(said(point({ tags: [], meta: null }))).toBe('x is missing (expected a number)');
    expect(said(point({ x: 1, tags: ['a', 5], meta: null }))).toBe('tags[1] must be a string, got 5');
    expect(said(point({ x: 1, tags: [], meta: { a: 'b' } }))).toBe('meta.a must be a number, got "b"');
    expect(said(point({ x: 1, label: null, tags: [], meta: null }))).toBe('label must be a string, got null');
    expect(said(point([]))).toBe('the answer must be an object, got an array');
    expect(said(point(null))).toBe('the answer must be an object, got null');
  });

  it('numbers are finite; oneOf lists its values; either falls back', () => {
    expect(said(number(Number.NaN))).toBe('the answer must be a number, got NaN');
    expect(said(oneOf(['a', 'b'])('c'))).toBe('the answer must be one of "a", "b", got "c"');
    const idOrName = either(number, string);
    expect(idOrName(1)).toBeNull();
    expect(idOrName('x')).toBeNull();
    expect(said(idOrName(true))).toBe('the answer must be a string, got true');
  });

  it('formatPath', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['taskList', 3, 'attempts', 0, 'state'])).toBe('taskList[3].attempts[0].state');
    expect(formatPath([0, 'name'])).toBe('[0].name');
  });

  it('a long value is cut and a control character escaped', () => {
    const message = said(string(5)) ?? '';
    expect(message).toBe('the answer must be a string, got 5');
    const long = said(number('\u001b'.repeat(100))) ?? '';
    expect(long).not.toContain('\u001b');
    expect(long).toMatch(/characters\)$/);
  });

  it('property: array(string) accepts exactly the arrays of strings', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null))), (values) => {
        const ok = values.every((v) => typeof v === 'string');
        expect(array(string)(values) === null).toBe(ok);
      }),
    );
  });
});

describe('route shapes', () => {
  it('a submit answer', () => {
    expect(submitAnswer({ name: '/a', run: 1, tasks: 2, parent: null, generated: true })).toBeNull();
    expect(said(submitAnswer({}))).toBe('name is missing (expected a string)');
  });

  it('health needs ok: true', () => {
    expect(healthAnswer({ ok: true, version: '1', pid: 3 })).toBeNull();
    expect(said(healthAnswer({ ok: false, version: '1', pid: 3 }))).toBe('ok must be one of true, got false');
  });

  it('a job list checks each job, down to its task counts', () => {
    const job = {
      name: '/a',
      run: 1,
      archived: false,
      user: 'u',
      state: 'RUNNING',
      reason: null,
      depth: 1,
      parent: null,
      replicas: 1,
      tasks: { total: 1, byState: { RUNNING: 1 } },
      submittedAt: 1,
      startedAt: 2,
      finishedAt: null,
    };
    expect(jobsAnswer([job, { ...job, submitter: 'root' }])).toBeNull();
    expect(said(jobsAnswer([job, { ...job, tasks: { total: 1, byState: { RUNNING: '1' } } }]))).toBe(
      '[1].tasks.byState.RUNNING must be a number, got "1"',
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashOf, jobHash, parseHash, VIEWS } from '../../src/web/route.js';

describe('routes', () => {
  it('reads each view, the jobs view for an empty hash, and `unknown` for a hash naming no view', () => {
    expect(parseHash('')).toEqual({ view: 'jobs', arg: '', params: {} });
    expect(parseHash('#/')).toEqual({ view: 'jobs', arg: '', params: {} });
    expect(parseHash('#/nowhere')).toEqual({ view: 'unknown', arg: 'nowhere', params: {} });
    expect(parseHash('#/no%20such/page?x=1')).toEqual({ view: 'unknown', arg: 'no such/page', params: {} });
    expect(parseHash('#/queue').view).toBe('queue');
    expect(parseHash('#/jobs?root=/a&state=RUNNING')).toEqual({
      view: 'jobs',
      arg: '',
      params: { root: '/a', state: 'RUNNING' },
    });
  });

  it('names a job with or without its slash, encoded or not', () => {
    for (const hash of ['#/job/a/b', '#/job//a/b', '#/job/%2Fa%2Fb', '#/job/a%2Fb'])
      expect(parseHash(hash).arg).toBe('/a/b');
    expect(parseHash('#/logs/a/task-0?since=10m')).toEqual({
      view: 'logs',
      arg: '/a/task-0',
      params: { since: '10m' },
    });
    expect(jobHash('/a b/c@3')).toBe('#/job/a%20b/c%403');
  });

  it('parseHash reads back what hashOf writes (property)', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9_.@ ?&#%-]{1,8}$/);
    fc.assert(
      fc.property(
        fc.constantFrom(...VIEWS),
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.string({ minLength: 1, maxLength: 6 })),
        (view, parts, params) => {
          const named = view === 'job' || view === 'logs';
          const arg = named ? `/${parts.join('/')}` : '';
          expect(parseHash(hashOf(view, arg, params))).toEqual({ view, arg, params });
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { JobsQuerySchema, LogsQuerySchema, parseQuery } from '../../src/api/queries.js';
import { refusal } from '../helpers/refusal.js';

const q = (text: string) => new URLSearchParams(text);

describe('query parameters', () => {
  it('parses the jobs filter, states case-insensitive, empty values as absent', () => {
    expect(parseQuery(JobsQuerySchema, q('prefix=/a&state=pending, running&user='))).toEqual({
      prefix: '/a',
      state: ['PENDING', 'RUNNING'],
    });
    const error = refusal(() => parseQuery(JobsQuerySchema, q('state=PENDING,NOPE')));
    expect([error.code, error.message]).toEqual([
      'invalid_argument',
      'query parameter "state": unknown job state "NOPE"',
    ]);
    expect(error.hint).toMatch(/^states: PENDING, /);
  });

  it('parses the logs query and names a bad parameter', () => {
    expect(parseQuery(LogsQuerySchema, q('target=/a&follow=YES&tail=10&attempt=0&since=5m'))).toEqual({
      target: '/a',
      follow: true,
      tail: 10,
      attempt: 0,
      since: '5m',
    });
    expect(parseQuery(LogsQuerySchema, q('target=a&follow=0'))).toEqual({ target: 'a', follow: false });
    expect(refusal(() => parseQuery(LogsQuerySchema, q(''))).message).toBe('query parameter "target" is required');
    expect(refusal(() => parseQuery(LogsQuerySchema, q('target=a&tail=-1'))).message).toBe(
      'query parameter "tail" must be a non-negative integer, got "-1"',
    );
    expect(refusal(() => parseQuery(LogsQuerySchema, q('target=a&follow=Maybe'))).message).toBe(
      'query parameter "follow" must be 1 or 0, got "maybe"',
    );
  });
});

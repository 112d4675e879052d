import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/web/api.js';
import { reachOf } from '../../src/web/reach.js';

describe('whether the page reaches a cluster', () => {
  it('tells a read-only server from one that does not answer', () => {
    expect(reachOf(null)).toBe('live');
    expect(reachOf(new ApiError(503, 'unavailable', 'the cluster is stopped'))).toBe('stopped');
    expect(reachOf(new ApiError(502, 'internal', 'bad gateway'))).toBe('stopped');
    expect(reachOf(new ApiError(0, 'unavailable', 'the dashboard server did not answer (Failed to fetch)'))).toBe(
      'gone',
    );
    expect(reachOf(new SyntaxError('Unexpected token <'))).toBe('stopped');
    expect(reachOf(new ApiError(401, 'unauthenticated', 'log in'))).toBe('live');
  });
});

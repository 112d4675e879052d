import { describe, expect, it } from 'vitest';
import { IrisError } from '../../src/model/errors.js';
import { endpointName } from '../../src/model/names.js';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof IrisError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('endpointName', () => {
  it('puts a relative name under the registering job', () => {
    expect(endpointName('coordinator', '/train')).toBe('/train/coordinator');
    expect(endpointName('svc/rank-0', '/train/eval')).toBe('/train/eval/svc/rank-0');
    expect(endpointName(' grpc:main ', '/a')).toBe('/a/grpc:main');
  });

  it('accepts an absolute name below the job itself', () => {
    expect(endpointName('/train/coordinator', '/train')).toBe('/train/coordinator');
  });

  it("refuses another job's prefix as forbidden", () => {
    expect(codeOf(() => endpointName('/victim/ps', '/train'))).toBe('forbidden');
    expect(codeOf(() => endpointName('/train/x', '/train/eval'))).toBe('forbidden');
    expect(codeOf(() => endpointName('/trainer/x', '/train'))).toBe('forbidden');
    expect(codeOf(() => endpointName('/train', '/train'))).toBe('forbidden');
  });

  it('refuses empty, "." and ".." parts as invalid', () => {
    for (const bad of ['', '../victim/ps', 'a/../b', './a', 'a//b', 'a/', '/train/', '-x', 'a b']) {
      expect(
        codeOf(() => endpointName(bad, '/train')),
        bad,
      ).toBe('invalid_argument');
    }
  });
});

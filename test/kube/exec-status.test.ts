/** The exit code of a Pod exec's final status (src/kube/exec.ts). */
import { describe, expect, it } from 'vitest';
import { execExitCode } from '../../src/kube/exec.js';

describe('execExitCode', () => {
  it('Success is 0; a failure names its ExitCode; anything else is unknown', () => {
    expect(execExitCode({ status: 'Success' })).toBe(0);
    expect(
      execExitCode({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '42' }] },
      }),
    ).toBe(42);
    expect(execExitCode({ status: 'Failure', message: 'container not found' })).toBeNull();
    expect(execExitCode(null)).toBeNull();
  });
});

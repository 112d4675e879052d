/** The IrisError `fn` throws (refusal) or `promise` rejects with (rejection); fails the test on anything else. */
import { expect } from 'vitest';
import { IrisError } from '../../src/model/errors.js';

export function refusal(fn: () => unknown): IrisError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(IrisError);
    return error as IrisError;
  }
  throw new Error('expected a refusal');
}

/** The IrisError `promise` rejects with; fails the test when it rejects with something else or resolves. */
export async function rejection(promise: Promise<unknown>): Promise<IrisError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(IrisError);
    return error as IrisError;
  }
  throw new Error('expected a rejection');
}

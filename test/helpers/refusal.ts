/** The IrisError `fn` throws; fails the test when it throws something else or nothing. */
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

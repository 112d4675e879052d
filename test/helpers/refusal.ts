/**
 * The error a call fails with, for tests that look at it: the one helper (a test binds the call
 * it refuses in a one-line wrapper of its own, `const errorOf = (raw) => refusal(() => …)`).
 * `refusal` takes what `fn` throws, `rejection` what `promise` rejects with; each fails the test
 * when there is none, or when it is not a `type` (default IrisError).
 */
import { expect } from 'vitest';
import { IrisError } from '../../src/model/errors.js';

/** Any error class (`IrisError`, `Error`). */
type ErrorClass<T> = abstract new (...args: never[]) => T;

export function refusal(fn: () => unknown): IrisError;
export function refusal<T>(fn: () => unknown, type: ErrorClass<T>): T;
export function refusal(fn: () => unknown, type: ErrorClass<unknown> = IrisError): unknown {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error;
  }
  throw new Error('expected a refusal');
}

/** The error `promise` rejects with; fails the test when it rejects with something else or resolves. */
export function rejection(promise: Promise<unknown>): Promise<IrisError>;
export function rejection<T>(promise: Promise<unknown>, type: ErrorClass<T>): Promise<T>;
export async function rejection(promise: Promise<unknown>, type: ErrorClass<unknown> = IrisError): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error;
  }
  throw new Error('expected a rejection');
}

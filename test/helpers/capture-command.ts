/**
 * Runs an oclif command (or anything that writes like one) in this process and captures what a
 * user would see: its exit code, stdout and stderr. An oclif exit becomes the exit code; any
 * other error is rethrown.
 */
import { Errors } from '@oclif/core';
import { vi } from 'vitest';

export interface Captured {
  exit: number;
  stdout: string;
  stderr: string;
}

export async function captureCommand(fn: () => Promise<unknown>): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    await fn();
    return { exit: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof Errors.ExitError) return { exit: error.oclif.exit ?? 1, stdout, stderr };
    throw error;
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

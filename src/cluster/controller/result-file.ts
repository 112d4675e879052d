/**
 * Reading an attempt's result file ($IRIS_RESULT_FILE, launch.ts resultFileFor) when the attempt
 * has ended, before its end is recorded: by the supervisor, and at start-up for attempts that
 * ended while the cluster was down.
 *
 * - No file: nothing happens. A valid file (model/results.ts parseResultFile) is stored whole
 *   through ClusterStore.setResults, as the attempt's own results.
 * - An invalid file (not JSON, not an object of strings, a bad key or value, too many keys, too
 *   large to be valid) stores nothing: the answer is a note, which `withNote` adds to the
 *   attempt's reason without changing its outcome (a success stays a success).
 * - An attempt the store has already ended (cancelled, preempted) is left alone.
 * The file is read with a size limit and only parsed, never executed.
 */
import { readFile, stat } from 'node:fs/promises';
import { IrisError } from '../../model/errors.js';
import { MAX_RESULT_FILE_BYTES, parseResultFile } from '../../model/results.js';
import type { AttemptOutcome } from '../../model/states.js';
import type { ClusterStore } from '../state/store.js';

/** Store the results in `file` for attempt `attempt` of `task`; a note when the file was not valid, else null. */
export async function collectResultFile(store: ClusterStore, task: string, attempt: number, file: string): Promise<string | null> {
  try {
    const size = (await stat(file)).size;
    if (size > MAX_RESULT_FILE_BYTES) throw new IrisError('invalid_argument', `the result file is ${size} bytes, too large to hold valid results`);
    const results = parseResultFile(await readFile(file, 'utf8'));
    if (Object.keys(results).length > 0) store.setResults(task, attempt, results);
    return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (error instanceof IrisError && error.code === 'conflict') return null; // already ended by the store
    return `result file ignored: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The outcome with `note` added to its reason (the outcome itself is kept). */
export function withNote(outcome: AttemptOutcome, note: string | null): AttemptOutcome {
  if (note === null || outcome.kind === 'timeout') return outcome;
  const reason = 'reason' in outcome && outcome.reason ? `${outcome.reason}; ${note}` : note;
  return { ...outcome, reason };
}

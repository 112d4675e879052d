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
 * The file is read with readTaskFile (runtime/task-file.ts): never through a symlink, never a
 * FIFO, device or hard link, only a file of the task's own user (`owner`, taskFileOwner) of at
 * most MAX_RESULT_FILE_BYTES; anything else is ignored with a note in iris's words. The note
 * quotes nothing of the file (model/results.ts parseResultFile). The file is only parsed, never
 * executed.
 */
import { IrisError } from '../../model/errors.js';
import { MAX_RESULT_FILE_BYTES, parseResultFile } from '../../model/results.js';
import type { AttemptOutcome } from '../../model/states.js';
import { readTaskFile } from '../../runtime/task-file.js';
import type { ClusterStore } from '../state/store.js';

/**
 * Store the results in `file` for attempt `attempt` of `task`; a note when the file was not
 * valid, else null. `owner`: the uid the file must belong to (null: any, taskFileOwner).
 */
export async function collectResultFile(
  store: ClusterStore,
  task: string,
  attempt: number,
  file: string,
  owner: number | null,
): Promise<string | null> {
  const read = readTaskFile(file, { maxBytes: MAX_RESULT_FILE_BYTES, owner });
  if (read.kind === 'missing') return null;
  if (read.kind === 'refused') return `result file ignored: ${read.why}`;
  try {
    const results = parseResultFile(read.data.toString('utf8'));
    if (Object.keys(results).length > 0) store.setResults(task, attempt, results);
    return null;
  } catch (error) {
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

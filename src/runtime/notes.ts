/**
 * iris's own notes in an attempt's log (`TaskLaunch.logPath`), for the layers above the runtimes:
 * the controller notes why it stops an attempt and what was wrong with its result file. An
 * attempt's log is its runtime's (the runtime appends the output there in the format of
 * src/logs/format.ts), so the cluster reaches it through this seam and never src/logs itself
 * (.dependency-cruiser.cjs, `cluster-reaches-logs-through-runtime`). A note is one write of `e`
 * lines after its own time line (logs/files.ts appendNote), owner-only, never through a symlink.
 */
import { appendNote } from '../logs/files.js';
import type { TaskLaunch } from './types.js';

/** Appends `text` to the attempt's log as iris's note at `now`; rejects when it cannot be written. */
export function noteInLog(launch: Pick<TaskLaunch, 'logPath'>, text: string, now: number): Promise<void> {
  return appendNote(launch.logPath, text, now);
}

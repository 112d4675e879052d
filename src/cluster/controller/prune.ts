/**
 * Deleting the log files of pruned runs (state/retention.ts decides which runs go).
 *
 * - A run's logs are one directory, `logs/<job path>/@<run>/` (launch.ts logPathFor): it is
 *   removed whole (with the spool and status files a build before `IRIS_HOME/spool/` kept beside
 *   the logs). A run whose tasks wrote nothing has no directory: nothing to remove. An attempt
 *   written before run ids (`logs/<job path>/task-<i>/attempt-<n>.log`) loses only its log file.
 *   Directories left empty above are removed, up to `logs/` itself (kept).
 * - Nothing outside `<home>/logs/` is ever touched, whatever a stored path says.
 * - Reports the bytes freed (sizes summed before removal); errors other than a file already gone
 *   are collected, not thrown, so one unreadable directory does not stop the rest.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { removeEmptyDirs } from '../../runtime/log-dirs.js';

export interface RemovedLogs {
  bytes: number;
  errors: string[];
}

/** The directory (new layout) or file (old layout) that holds an attempt's log. */
export function runLogTarget(logPath: string): string {
  const runDir = path.dirname(path.dirname(logPath));
  return path.basename(runDir).startsWith('@') ? runDir : logPath;
}

async function sizeOf(target: string): Promise<number> {
  const st = await lstat(target);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of await readdir(target)) total += await sizeOf(path.join(target, name));
  return total;
}

export async function removeRunLogs(
  logsRoot: string,
  logPaths: Iterable<string>,
  dryRun = false,
): Promise<RemovedLogs> {
  const root = path.resolve(logsRoot);
  const targets = new Set<string>();
  for (const logPath of logPaths) {
    const target = path.resolve(runLogTarget(logPath));
    if (target.startsWith(root + path.sep)) targets.add(target);
  }
  const result: RemovedLogs = { bytes: 0, errors: [] };
  for (const target of targets) {
    try {
      result.bytes += await sizeOf(target);
      if (dryRun) continue;
      await rm(target, { recursive: true, force: true });
      await removeEmptyDirs(path.dirname(target), root);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') result.errors.push(`${target}: ${code ?? (error as Error).message}`);
    }
  }
  return result;
}

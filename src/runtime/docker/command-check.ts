/**
 * "command not found" for containers that run under the engine's init. With `Init: true` the
 * engine starts docker-init (tini), which starts fine and only then fails to exec the task's
 * command (exit 127), so the engine's own "executable file not found" never comes. Before the
 * start, iris therefore looks the command up in the created (not yet started) container's
 * filesystem with the engine's path-stat request (HEAD /containers/{id}/archive), the way
 * execvp would: an absolute or cwd-relative path as is, a bare name in each PATH directory.
 *
 * A found command is remembered per (image, PATH, cwd, command), so the tasks of one job pay for
 * one lookup. When the lookup cannot decide (no PATH in the launch, a relative PATH entry, an
 * engine error), it lets the start go on and the task's own exit status tells.
 */
import { posix } from 'node:path';
import type Docker from 'dockerode';
import type { TaskLaunch } from '../types.js';

/** Go's os.ModeDir bit in the engine's path-stat `mode`. */
const MODE_DIR = 2 ** 31;
const CACHE_LIMIT = 1024;

export type CommandLookup = 'found' | 'missing' | 'unknown';

/** Paths execvp would try for argv[0], or null when a lookup cannot decide. Pure. */
export function commandCandidates(file: string, env: Record<string, string>, cwd: string): string[] | null {
  if (file.includes('/')) {
    if (file.startsWith('/')) return [file];
    return cwd === '' ? null : [posix.join(cwd, file)];
  }
  const path = env.PATH;
  if (path === undefined) return null;
  const dirs = path.split(':');
  if (dirs.some((d) => !d.startsWith('/'))) return null;
  return dirs.map((d) => posix.join(d, file));
}

function statOf(headers: Record<string, unknown> | undefined): { mode?: number } | null {
  const raw = headers?.['x-docker-container-path-stat'];
  if (typeof raw !== 'string') return null;
  try {
    return JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as { mode?: number };
  } catch {
    return null;
  }
}

export class CommandChecker {
  private readonly found = new Set<string>();

  async lookup(container: Docker.Container, launch: TaskLaunch): Promise<CommandLookup> {
    const file = launch.argv[0] ?? '';
    const candidates = commandCandidates(file, launch.env, launch.cwd);
    if (candidates === null) return 'unknown';
    const key = [launch.container?.image ?? '', launch.env.PATH ?? '', launch.cwd, file].join('\0');
    if (this.found.has(key)) return 'found';
    const results = await Promise.all(
      candidates.map(async (path): Promise<CommandLookup> => {
        try {
          const res = (await container.infoArchive({ path })) as unknown as {
            headers?: Record<string, unknown>;
            resume?: () => void;
          };
          res.resume?.();
          const stat = statOf(res.headers);
          if (stat === null) return 'unknown';
          // A directory is not a command (the dir bit is the top bit of the uint32 mode).
          return typeof stat.mode === 'number' && stat.mode >= MODE_DIR ? 'missing' : 'found';
        } catch (error) {
          return (error as { statusCode?: number }).statusCode === 404 ? 'missing' : 'unknown';
        }
      }),
    );
    if (results.includes('found')) {
      if (this.found.size >= CACHE_LIMIT) this.found.clear();
      this.found.add(key);
      return 'found';
    }
    return results.includes('unknown') ? 'unknown' : 'missing';
  }
}

/**
 * Host directories in a container: the one home of what a mount is and which host paths may
 * never be mounted (docs/security.md, "Mounts: what a container may see of the host"). Pure:
 * the real paths come from the caller (admission gets them through its ClusterView).
 *
 * - A mount is `SRC:DST[:ro|:rw]`: both absolute paths without `:`; SRC is a host path, resolved
 *   to its real path (symlinks followed) before any rule looks at it, DST the path inside.
 * - Never mounted, whatever asks: the host's `/`, anything in `/proc`, `/sys` or `/dev`, the
 *   cluster's state directory (its database, sockets, tokens and logs) and any directory that
 *   holds it, and the Docker engine's socket and any directory that holds it. A mount that
 *   contains one of them would hand it to the container, so "holds" counts as much as "is".
 * - DST is an absolute path other than `/`, outside `/proc`, `/sys` and `/dev`, and outside the
 *   directory of the task's token file (`/.iris-task`); two mounts never share a DST.
 */
import path from 'node:path';
import { IrisError, describeValue } from './errors.js';

/** One host path in a container: `source` (a real host path, once resolved) at `target`. */
export interface Mount {
  source: string;
  target: string;
  readOnly: boolean;
}

/** Kernel file systems a container never gets from the host (DST may not shadow them either). */
export const KERNEL_DIRS = ['/proc', '/sys', '/dev'] as const;
/** Where a container finds its task token; no mount may cover it. */
export const TOKEN_DIR = '/.iris-task';

/** The host paths a mount may not be, hold or lie in, besides KERNEL_DIRS and `/`. */
export interface ForbiddenHostPaths {
  /** The state directory, as given and as its real path. */
  stateDirs: readonly string[];
  /** The container engine's socket(s), as given and as real paths. */
  engineSockets: readonly string[];
}

/** Is `inner` the path `outer` or below it (both absolute and normalized)? */
export function isWithinPath(inner: string, outer: string): boolean {
  if (outer === '/') return true;
  return inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
}

function usage(text: string, why: string, field: string): IrisError {
  return new IrisError(
    'invalid_argument',
    `${field} ${describeValue(text)}: ${why}`,
    'write SRC:DST or SRC:DST:ro with absolute paths, e.g. --mount /data/imagenet:/data:ro',
    field,
  );
}

/**
 * `SRC:DST[:ro|:rw]` as typed (the source not yet resolved). `field` names it in messages: the
 * request field `mounts[2]` (the CLI shows `--mount`) or a config key.
 */
export function parseMount(text: string, field: string): Mount {
  let rest = text;
  let readOnly = false;
  const mode = /:(ro|rw)$/.exec(rest);
  if (mode) {
    readOnly = mode[1] === 'ro';
    rest = rest.slice(0, -3);
  }
  const parts = rest.split(':');
  if (parts.length !== 2) {
    const why = parts.length < 2 ? 'expected SRC:DST' : 'expected SRC:DST[:ro]; a path may not contain ":"';
    throw usage(text, why, field);
  }
  const [source, target] = parts as [string, string];
  if (!source.startsWith('/')) {
    throw new IrisError(
      'invalid_argument',
      `${field} ${describeValue(text)}: the host path ${describeValue(source)} is not absolute`,
      'give the absolute host path, e.g. --mount "$PWD/data:/data"',
      field,
    );
  }
  const problem = targetProblem(target);
  if (problem)
    throw new IrisError(
      'invalid_argument',
      `${field} ${describeValue(text)}: ${problem}`,
      'mount at an absolute path such as /data',
      field,
    );
  return { source: normalPath(source), target: normalPath(target), readOnly };
}

/** `/a/./b/../c/` as `/a/c`: no `.`, `..`, doubled or trailing `/`. */
function normalPath(p: string): string {
  const normal = path.posix.normalize(p);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** Why `target` cannot be a mount's path inside a container, or null. */
export function targetProblem(target: string): string | null {
  if (!target.startsWith('/')) return `the path in the container ${describeValue(target)} is not absolute`;
  const normal = normalPath(target);
  if (normal === '/') return "a mount cannot cover the container's whole file system (/)";
  for (const dir of [...KERNEL_DIRS, TOKEN_DIR]) {
    if (isWithinPath(normal, dir))
      return `${describeValue(normal)} lies in ${dir}, which the container's runtime provides`;
  }
  return null;
}

/**
 * Why the host path `real` (a real path: no symlink left in it) may never be mounted, or null.
 * The message says what it is or holds (`it holds the cluster's state directory /home/u/.iris`).
 */
export function forbiddenSource(real: string, forbidden: ForbiddenHostPaths): string | null {
  if (real === '/') return "it is the host's root directory, which holds everything of the host";
  for (const dir of KERNEL_DIRS) {
    if (isWithinPath(real, dir)) return `it lies in ${dir}, the host kernel's own file system`;
  }
  for (const home of forbidden.stateDirs) {
    if (isWithinPath(real, home))
      return `it lies in the cluster's state directory ${home} (its database, sockets and task tokens)`;
    if (isWithinPath(home, real))
      return `it holds the cluster's state directory ${home} (its database, sockets and task tokens)`;
  }
  for (const socket of forbidden.engineSockets) {
    if (isWithinPath(socket, real)) {
      return (
        `it ${real === socket ? 'is' : 'holds'} the container engine's socket ${socket}, and whoever reaches ` +
        `it is root on the host`
      );
    }
  }
  return null;
}

/** The text of a mount as `iris status` shows it: `/data/imagenet:/data:ro`. */
export function formatMount(mount: Mount): string {
  return `${mount.source}:${mount.target}${mount.readOnly ? ':ro' : ''}`;
}

/**
 * Whether another local user could control a path: the rule iris applies before it reads a file
 * whose content decides what it runs (a config file, src/config/find.ts), the way OpenSSH's
 * StrictModes and git's safe.directory do. Pure: it judges `lstat` results, it reads nothing.
 *
 * A path is trusted when every entry along it, from the file up to `/`, passes:
 *   - it is owned by the caller or by root (uid 0); when root calls, only root's own entries pass;
 *   - the file itself is a regular file, not writable by its group or by others;
 *   - a directory above it is not writable by its group or by others, unless it has the sticky
 *     bit (root's `/tmp`): there others may add entries but cannot rename or remove ours, and the
 *     entry below it must itself pass;
 *   - a symbolic link is judged by its owner only (its mode means nothing); what it points to is
 *     judged as a path of its own (callers check the real path too);
 *   - write bits mean nothing on a read-only mount (`readOnly`, found by the caller).
 *
 * An upward search (searchStep) does not look in a directory writable by others, nor above it.
 *
 * The same ancestor rule (ancestorProblem) guards the state directory (src/api/state-dir.ts).
 */

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

/** What `lstat` says about one entry of a path. */
export interface PathEntry {
  path: string;
  kind: EntryKind;
  uid: number;
  /** st_mode (type bits may be present; only the permission bits are read). */
  mode: number;
  /** It lies on a read-only mount (a Kubernetes ConfigMap volume, whose directory is 0777): nobody can change it. */
  readOnly?: boolean;
}

export type TrustProblem =
  | { path: string; kind: EntryKind; problem: 'owner'; uid: number }
  | { path: string; kind: EntryKind; problem: 'group-writable' | 'other-writable'; mode: number }
  | { path: string; kind: EntryKind; problem: 'not-a-file' };

const STICKY = 0o1000;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;

/** The caller or root owns it. */
export function trustedOwner(uid: number, caller: number): boolean {
  return uid === caller || uid === 0;
}

function writableBySomeoneElse(entry: PathEntry): TrustProblem | null {
  if (entry.readOnly) return null;
  if ((entry.mode & OTHER_WRITE) !== 0)
    return { path: entry.path, kind: entry.kind, problem: 'other-writable', mode: entry.mode };
  if ((entry.mode & GROUP_WRITE) !== 0)
    return { path: entry.path, kind: entry.kind, problem: 'group-writable', mode: entry.mode };
  return null;
}

/** `entry` as the file being loaded (a symlink there: its owner only). */
export function fileProblem(entry: PathEntry, caller: number): TrustProblem | null {
  if (!trustedOwner(entry.uid, caller)) return { path: entry.path, kind: entry.kind, problem: 'owner', uid: entry.uid };
  if (entry.kind === 'symlink') return null;
  if (entry.kind !== 'file') return { path: entry.path, kind: entry.kind, problem: 'not-a-file' };
  return writableBySomeoneElse(entry);
}

/** `entry` as a directory (or a symlink) above the file. */
export function ancestorProblem(entry: PathEntry, caller: number): TrustProblem | null {
  if (!trustedOwner(entry.uid, caller)) return { path: entry.path, kind: entry.kind, problem: 'owner', uid: entry.uid };
  if (entry.kind !== 'directory' || (entry.mode & STICKY) !== 0) return null;
  return writableBySomeoneElse(entry);
}

/**
 * The first problem along `chain`: `chain[0]` is the file, the rest the entries above it in
 * order up to `/`. Null: the caller (or root) alone controls the path.
 */
export function chainProblem(chain: readonly PathEntry[], caller: number): TrustProblem | null {
  if (chain.length === 0) return null;
  const first = fileProblem(chain[0]!, caller);
  if (first) return first;
  for (let i = 1; i < chain.length; i++) {
    const problem = ancestorProblem(chain[i]!, caller);
    if (problem) return problem;
  }
  return null;
}

/**
 * Whether an upward search looks in a directory (its `stat`, links followed): not when others
 * may write it (sticky or not, like `/tmp`: anyone could have put a file there), and then not
 * above it either (`stop`). Any other directory is looked in (`look`); a file found there is
 * judged, and refused when it fails, by chainProblem.
 */
export function searchStep(dir: PathEntry): 'stop' | 'look' {
  return (dir.mode & OTHER_WRITE) !== 0 && !dir.readOnly ? 'stop' : 'look';
}

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** `owned by uid 1000, not by you (uid 0) or root` / `writable by others (mode 0777)`. */
export function describeProblem(problem: TrustProblem, caller: number): string {
  switch (problem.problem) {
    case 'owner':
      return `owned by uid ${problem.uid}, not by you (uid ${caller}) or root`;
    case 'group-writable':
      return `writable by its group (mode ${octal(problem.mode)})`;
    case 'other-writable':
      return `writable by others (mode ${octal(problem.mode)})`;
    case 'not-a-file':
      return problem.kind === 'directory' ? 'a directory, not a file' : 'not a regular file';
  }
}

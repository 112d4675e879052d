/**
 * One fs.watch per directory, shared by every spool pump that follows files in it. The attempts
 * of a job share their `.run` directory: with one watcher per attempt, every file event there
 * (spools created and removed, status files written) ran one callback per running attempt.
 *
 * Guarantees: a listener is called for events naming one of its files, and for events without
 * a name; the watcher closes with its last listener; when the watcher fails, every listener's
 * `onError` is called once and they are dropped (the pumps fall back to polling).
 */
import { watch, type FSWatcher } from 'node:fs';

interface Entry {
  names: readonly string[];
  onChange: () => void;
  onError: () => void;
}

interface Shared {
  watcher: FSWatcher;
  entries: Set<Entry>;
  byName: Map<string, Set<Entry>>;
}

const shared = new Map<string, Shared>();

function open(dir: string): Shared {
  const s: Shared = { watcher: null as unknown as FSWatcher, entries: new Set(), byName: new Map() };
  s.watcher = watch(dir, { persistent: false }, (_event, name) => {
    if (name === null) for (const e of [...s.entries]) e.onChange();
    else for (const e of [...(s.byName.get(String(name)) ?? [])]) e.onChange();
  });
  s.watcher.on('error', () => {
    if (shared.get(dir) === s) shared.delete(dir);
    s.watcher.close();
    const all = [...s.entries];
    s.entries.clear();
    s.byName.clear();
    for (const e of all) e.onError();
  });
  shared.set(dir, s);
  return s;
}

/**
 * Calls `onChange` on events of `names` in `dir` until the returned function is called. Throws
 * when the directory cannot be watched (fs.watch's error).
 */
export function watchFiles(
  dir: string,
  names: readonly string[],
  onChange: () => void,
  onError: () => void,
): () => void {
  const s = shared.get(dir) ?? open(dir);
  const entry: Entry = { names, onChange, onError };
  s.entries.add(entry);
  for (const n of names) {
    let set = s.byName.get(n);
    if (!set) s.byName.set(n, (set = new Set()));
    set.add(entry);
  }
  return () => {
    if (!s.entries.delete(entry)) return;
    for (const n of entry.names) {
      const set = s.byName.get(n);
      set?.delete(entry);
      if (set?.size === 0) s.byName.delete(n);
    }
    if (s.entries.size === 0) {
      if (shared.get(dir) === s) shared.delete(dir);
      s.watcher.close();
    }
  };
}

/** How many directories are watched now (one per directory, however many listeners). */
export const watchedDirs = (): number => shared.size;

/**
 * Small, failure-tolerant readers of Linux /proc and process-group signalling, and the one rule
 * of when a process is alive (isAlive: it exists and is not a zombie). Used by the process
 * runtime (its tasks) and by the client (the cluster process it waits to see gone): src/host is a
 * leaf below both and imports nothing of iris (.dependency-cruiser.cjs, `host-is-a-leaf`).
 * Every reader returns null instead of throwing: processes vanish between calls and other
 * users' /proc files may be unreadable; callers treat null as "not ours / gone".
 */
import { readFile, readdir } from 'node:fs/promises';
import { readSmallText } from './small-file.js';

export const PROC_ROOT = '/proc';

export interface ProcStat {
  /** One-letter state: R, S, D, Z (zombie), T, X ... */
  state: string;
  ppid: number;
  pgid: number;
}

/** The raw NUL-separated environment a process was started with, or null. */
export async function readEnviron(pid: number, root = PROC_ROOT): Promise<Buffer | null> {
  try {
    return await readFile(`${root}/${pid}/environ`);
  } catch {
    return null;
  }
}

/** True when the NUL-separated environment holds exactly `name=value`. */
export function environHas(environ: Buffer, name: string, value: string): boolean {
  const needle = Buffer.from(`${name}=${value}`);
  let from = 0;
  for (;;) {
    const i = environ.indexOf(needle, from);
    if (i < 0) return false;
    const startOk = i === 0 || environ[i - 1] === 0;
    const end = i + needle.length;
    if (startOk && (end === environ.length || environ[end] === 0)) return true;
    from = i + 1;
  }
}

/** The value of `name` in a NUL-separated environment, or null. */
export function environGet(environ: Buffer, name: string): string | null {
  const prefix = `${name}=`;
  for (const entry of environ.toString('utf8').split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return null;
}

export async function readStat(pid: number, root = PROC_ROOT): Promise<ProcStat | null> {
  let text: string;
  try {
    text = await readSmallText(`${root}/${pid}/stat`);
  } catch {
    return null;
  }
  // "pid (comm) S ppid pgrp ..." — comm may hold spaces and parentheses: cut at the last ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  if (!fields[0] || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return null;
  return { state: fields[0], ppid, pgid };
}

/** Alive = exists and is not a zombie (a zombie has run its course and holds nothing). */
export async function isAlive(pid: number, root = PROC_ROOT): Promise<boolean> {
  const st = await readStat(pid, root);
  return st !== null && st.state !== 'Z' && st.state !== 'X';
}

export async function listPids(root = PROC_ROOT): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c >= 48 && c <= 57) {
      const pid = Number(name);
      if (Number.isSafeInteger(pid) && pid > 0) pids.push(pid);
    }
  }
  return pids;
}

/**
 * Sends a signal to a whole process group. Returns false when the group is gone (ESRCH) or
 * cannot be signalled (EPERM); never throws for those.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw err;
  }
}

/**
 * The host's file system as admission asks about it for mounts (src/cluster/admission/workspace.ts,
 * HostPaths): a path's real path, and whether a uid (and gid) could read it. The read check walks
 * from `/` down: every directory on the way needs search (x) permission, the path itself read
 * (r, and x for a directory), by the owner, group or other bits as they apply to that uid and
 * gid (root always can: a container's root keeps DAC_OVERRIDE). Supplementary groups and ACLs
 * are not counted; the answer errs on the side of "cannot read". Also the host paths no mount
 * may reach (model/mounts.ts ForbiddenHostPaths): the state directory and the engines' sockets,
 * each as given and as its real path.
 */
import { realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { HostPaths } from '../cluster/admission/index.js';
import type { ForbiddenHostPaths } from '../model/mounts.js';

/** The sockets of container engines on a usual host (whoever reaches one is root there). */
const ENGINE_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock', '/run/containerd/containerd.sock'];

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** `drwx------` for a stat. */
function modeText(st: Stats): string {
  const kind = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : '-';
  const rwx = (bits: number) => `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
  return `${kind}${rwx((st.mode >> 6) & 7)}${rwx((st.mode >> 3) & 7)}${rwx(st.mode & 7)}`;
}

/** The permission bits of `st` that apply to uid/gid. */
function bitsFor(st: Stats, uid: number, gid: number | null): number {
  if (st.uid === uid) return (st.mode >> 6) & 7;
  if (gid !== null && st.gid === gid) return (st.mode >> 3) & 7;
  return st.mode & 7;
}

export const hostPaths: HostPaths = {
  hostPath: realOrNull,
  unreadable(real, uid, gid) {
    if (uid === 0) return null;
    const parts = real.split('/').filter(Boolean);
    const chain = ['/', ...parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)];
    for (let i = 0; i < chain.length; i++) {
      const at = chain[i]!;
      let st: Stats;
      try {
        st = statSync(at);
      } catch (error) {
        return `${at} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      }
      const last = i === chain.length - 1;
      const need = last ? (st.isDirectory() ? 5 : 4) : 1;
      if ((bitsFor(st, uid, gid) & need) !== need) {
        return `${at} is ${modeText(st)} of ${st.uid}:${st.gid}${last ? '' : ', which it may not enter'}`;
      }
    }
    return null;
  },
};

/** The unix socket of DOCKER_HOST (`unix:///x`, `/x`), if it names one. */
function dockerHostSocket(value: string | undefined): string | null {
  const text = value?.trim() ?? '';
  if (text.startsWith('unix://')) return text.slice('unix://'.length) || null;
  return text.startsWith('/') ? text : null;
}

/** What no mount may reach on this host: the state directory `home` and the engines' sockets, as given and real. */
export function forbiddenHostPaths(home: string, env: NodeJS.ProcessEnv = process.env): ForbiddenHostPaths {
  const both = (paths: ReadonlyArray<string | null>): string[] => {
    const out = new Set<string>();
    for (const p of paths) {
      if (p === null) continue;
      out.add(path.resolve(p));
      const real = realOrNull(p);
      if (real !== null) out.add(real);
    }
    return [...out];
  };
  return { stateDirs: both([home]), engineSockets: both([...ENGINE_SOCKETS, dockerHostSocket(env.DOCKER_HOST)]) };
}

/**
 * Finding and stopping processes an earlier life of a cluster left behind.
 *
 * A process belongs to cluster C when the environment it was started with holds
 * `IRIS_CLUSTER_ID=C` (the controller puts it in every TaskLaunch.env; descendants inherit it).
 * Pids are never trusted alone: a recorded pid is used only to name the key of a group whose
 * leader still carries the matching IRIS_CLUSTER_ID / IRIS_TASK_ID / IRIS_ATTEMPT, so a reused
 * pid is never signalled. Whole process groups are stopped: TERM, grace, KILL, then wait until
 * no process of the cluster is left (bounded). Processes we cannot read are skipped.
 */
import type { StartedRecord, TaskKey } from '../types.js';
import {
  environGet,
  environHas,
  isAlive,
  listPids,
  readEnviron,
  readStat,
  signalGroup,
  PROC_ROOT,
} from '../../host/proc.js';

export const ENV_CLUSTER = 'IRIS_CLUSTER_ID';
export const ENV_TASK = 'IRIS_TASK_ID';
export const ENV_ATTEMPT = 'IRIS_ATTEMPT';
export const ENV_JOB = 'IRIS_JOB_ID';

export interface ReclaimOptions {
  /** Process groups that must never be touched (the caller's own, its live tasks). */
  excludeGroups?: ReadonlySet<number>;
  procRoot?: string;
  pollMs?: number;
  /** Upper bound of the wait after SIGKILL before giving up on stragglers. */
  killWaitMs?: number;
  /** Only processes of this attempt (by IRIS_TASK_ID and IRIS_ATTEMPT). */
  only?: TaskKey;
}

interface Found {
  pgid: number;
  key: TaskKey;
  pids: Set<number>;
}

/** The IRIS_TASK_ID a record's task carries: the full task name. */
export function taskIdOf(key: TaskKey): string {
  return key.task.startsWith('/') || key.job === '' ? key.task : `${key.job}/${key.task}`;
}

function keyFromEnviron(environ: Buffer): TaskKey {
  const task = environGet(environ, ENV_TASK) ?? '';
  const attempt = Number(environGet(environ, ENV_ATTEMPT) ?? 'NaN');
  const cut = task.lastIndexOf('/');
  const job = environGet(environ, ENV_JOB) ?? (cut > 0 ? task.slice(0, cut) : '');
  return { job, task, attempt: Number.isInteger(attempt) ? attempt : -1 };
}

function matchesRecord(environ: Buffer, record: StartedRecord): boolean {
  return (
    environHas(environ, ENV_TASK, taskIdOf(record.key)) && environHas(environ, ENV_ATTEMPT, String(record.key.attempt))
  );
}

/** Every live process group holding a process of `clusterId`. */
async function scan(
  clusterId: string,
  records: readonly StartedRecord[],
  opts: ReclaimOptions,
): Promise<Map<number, Found>> {
  const root = opts.procRoot ?? PROC_ROOT;
  const byPid = new Map<number, StartedRecord>();
  for (const r of records) if (r.pid !== null && r.pid > 1) byPid.set(r.pid, r);
  const groups = new Map<number, Found>();
  const pids = await listPids(root);
  const self = process.pid;
  await Promise.all(
    pids.map(async (pid) => {
      if (pid === self) return;
      const environ = await readEnviron(pid, root);
      if (environ === null || !environHas(environ, ENV_CLUSTER, clusterId)) return;
      if (opts.only && !matchesRecord(environ, { key: opts.only, pid: null, labels: {} })) return;
      const st = await readStat(pid, root);
      if (st === null || st.state === 'Z' || st.pgid <= 1 || opts.excludeGroups?.has(st.pgid)) return;
      let found = groups.get(st.pgid);
      if (!found) {
        found = { pgid: st.pgid, key: keyFromEnviron(environ), pids: new Set() };
        groups.set(st.pgid, found);
      }
      found.pids.add(pid);
      // The group leader names the group; prefer the record's key when the leader matches it.
      if (pid === st.pgid) {
        const record = byPid.get(pid);
        found.key = record && matchesRecord(environ, record) ? record.key : keyFromEnviron(environ);
      }
    }),
  );
  return groups;
}

async function waitGone(pids: Iterable<number>, ms: number, pollMs: number, root: string): Promise<boolean> {
  let left = [...pids];
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = await Promise.all(left.map((p) => isAlive(p, root)));
    left = left.filter((_, i) => alive[i]);
    if (left.length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(1, deadline - Date.now()))));
  }
}

/**
 * Stops every process group of `clusterId` (see the module header). Returns the keys of the
 * groups stopped, one per group, in no particular order.
 */
export async function reclaimProcesses(
  clusterId: string,
  records: readonly StartedRecord[],
  graceMs: number,
  opts: ReclaimOptions = {},
): Promise<TaskKey[]> {
  if (clusterId === '') throw new Error('reclaim needs a cluster id');
  const root = opts.procRoot ?? PROC_ROOT;
  const pollMs = opts.pollMs ?? 20;
  const selfGroup = (await readStat(process.pid, root))?.pgid;
  const exclude = new Set(opts.excludeGroups ?? []);
  if (selfGroup !== undefined) exclude.add(selfGroup);
  const scanOpts = { ...opts, excludeGroups: exclude };
  const stopped = new Map<number, TaskKey>();
  // A group may fork new members while being stopped: rescan until a pass finds nothing.
  for (let round = 0; round < 5; round++) {
    const groups = await scan(clusterId, records, scanOpts);
    if (groups.size === 0) break;
    const pids: number[] = [];
    for (const g of groups.values()) {
      if (!stopped.has(g.pgid)) stopped.set(g.pgid, g.key);
      signalGroup(g.pgid, 'SIGTERM');
      pids.push(...g.pids);
    }
    if (!(await waitGone(pids, round === 0 ? graceMs : 0, pollMs, root))) {
      for (const g of groups.values()) signalGroup(g.pgid, 'SIGKILL');
      await waitGone(pids, opts.killWaitMs ?? 5000, pollMs, root);
    }
  }
  return [...stopped.values()];
}

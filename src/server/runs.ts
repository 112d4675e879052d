/**
 * Runs of a name, for the routes that read them: which run `NAME@RUN` selects (the live job when
 * RUN is its run, else the archive; a bare NAME no live job holds: its newest archived run, as a
 * job that ended leaves memory), and `iris history` (GET /v1/history): the live jobs and the
 * archived runs that match a query, newest run first.
 *
 * Guarantees:
 * - An unknown run of a name is `not_found` with a hint listing the runs that name has.
 * - History reads the archive with one SQL query (filters on indexed columns, LIMIT), never all of
 *   it; live jobs are filtered in memory (they are in memory anyway).
 * - A run's energy is an estimate by the one energy rule (model/energy.ts attemptJoules): each
 *   attempt's share of its worker at the worker's current `power-watts`, up to now for a live one;
 *   null when none of its attempts ran on a worker with `power-watts`. A merged batch's energy is
 *   shared equally by the attempts it served, so runs never add up to more than the worker drew.
 */
import { bandOf } from '../model/band.js';
import type { ArchivedRun, ClusterStore } from '../cluster/state/store.js';
import { notFound } from '../model/errors.js';
import { isWithin, runRef } from '../model/names.js';
import type { Attempt, Job, Worker } from '../model/types.js';
import { attemptJoules, heldBy, useShare } from '../model/energy.js';
import type { HistoryQuery, RunAttemptInfo, RunInfo } from '../api/types.js';
import { archivedRunData, attemptOutcome, liveRun, type RunData } from './views.js';

/** Runs `iris history` lists when no --limit is given. */
export const DEFAULT_HISTORY_LIMIT = 100;

export type SelectedRun = { kind: 'live'; job: Job } | { kind: 'archived'; record: ArchivedRun };

/** The run `name@run` names (run null: the live job). not_found for an unknown name or run. */
export function selectRun(store: ClusterStore, name: string, run: number | null): SelectedRun {
  const live = store.job(name);
  if (run === null || live?.run === run) {
    if (live) return { kind: 'live', job: live };
    // An ended job that left memory (state/finished-trees.ts): its newest archived run.
    const latest = run === null ? store.archive.latest(name) : null;
    if (!latest) throw notFound(`unknown job ${name}`, knownRunsHint(store, name));
    return { kind: 'archived', record: latest };
  }
  const record = store.archive.get(run);
  if (!record || record.job.name !== name) throw notFound(`${name} has no run ${run}`, knownRunsHint(store, name));
  return { kind: 'archived', record };
}

function knownRunsHint(store: ClusterStore, name: string): string {
  const runs = store.archive.runsOf(name);
  const live = store.job(name);
  if (live) runs.push(live.run);
  if (runs.length === 0) return 'list jobs with `iris jobs` and past runs with `iris history`';
  return `runs of ${name}: ${runs.map((run) => runRef(name, run)).join(', ')} (see \`iris history ${name}\`)`;
}

/** What `iris history` needs beyond a run's rows: the workers (for energy) and the time. */
export interface RunContext {
  worker: (id: string) => Pick<Worker, 'cpuMillis' | 'device' | 'powerWatts'> | undefined;
  now: number;
}

/**
 * An attempt's energy estimate in joules; null when its worker has no `power-watts`. The attempts
 * of a merged batch share one process and one task's resources: each carries an equal part of it.
 */
function attemptEnergy(job: Job, a: Attempt, ctx: RunContext | undefined): number | null {
  const worker = ctx?.worker(a.workerId);
  if (!worker?.powerWatts) return null;
  const seconds = ((a.finishedAt ?? ctx!.now) - a.startedAt) / 1000;
  const joules = attemptJoules(worker.powerWatts, useShare(worker, heldBy(job.spec.resources)), seconds);
  return a.merged ? joules / a.merged.tasks.length : joules;
}

/** The run's line of `iris history`. */
export function runInfo({ job, tasks, attempts, archived }: RunData, ctx?: RunContext): RunInfo {
  const list: RunAttemptInfo[] = attempts.flat().map((a) => {
    const energyJoules = attemptEnergy(job, a, ctx);
    return {
      task: a.task,
      ...attemptOutcome(a),
      cpuSeconds: a.cpuSeconds,
      peakMemoryBytes: a.peakMemoryBytes,
      ...(energyJoules !== null ? { energyJoules } : {}),
    };
  });
  let exitCode: number | null = null;
  for (const task of tasks) if (task.exitCode !== null) exitCode = Math.max(exitCode ?? 0, task.exitCode);
  const cpu = list.filter((a) => a.cpuSeconds !== null);
  const memory = list.filter((a) => a.peakMemoryBytes !== null);
  const energy = list.filter((a) => a.energyJoules !== undefined);
  return {
    run: job.run,
    name: job.name,
    user: job.spec.user,
    ...(job.spec.submitter ? { submitter: job.spec.submitter } : {}),
    band: bandOf(job.spec),
    ...(job.spec.queue !== undefined ? { queue: job.spec.queue } : {}),
    state: job.state,
    reason: job.reason,
    archived,
    submittedAt: job.submittedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    exitCode,
    cpuSeconds: cpu.length === 0 ? null : cpu.reduce((sum, a) => sum + a.cpuSeconds!, 0),
    peakMemoryBytes: memory.length === 0 ? null : memory.reduce((peak, a) => Math.max(peak, a.peakMemoryBytes!), 0),
    energyJoules: energy.length === 0 ? null : energy.reduce((sum, a) => sum + a.energyJoules!, 0),
    attempts: list,
  };
}

function liveMatches(job: Job, query: HistoryQuery): boolean {
  if (query.prefix !== undefined && !isWithin(job.name, query.prefix)) return false;
  if (query.user !== undefined && job.spec.user !== query.user) return false;
  if (query.state !== undefined && query.state.length > 0 && !query.state.includes(job.state)) return false;
  if (query.since !== undefined && job.finishedAt !== null && job.finishedAt < query.since) return false;
  if (query.until !== undefined && job.submittedAt > query.until) return false;
  return true;
}

/** Live and archived runs matching `query`, newest run first, at most `query.limit`. */
export function runHistory(store: ClusterStore, query: HistoryQuery, now: number = Date.now()): RunInfo[] {
  const limit = query.limit ?? DEFAULT_HISTORY_LIMIT;
  const live: Job[] = [];
  for (const job of store.jobs()) if (liveMatches(job, query)) live.push(job);
  live.sort((a, b) => b.run - a.run);
  const archived = store.archive.list({
    limit,
    ...(query.prefix !== undefined ? { prefix: query.prefix } : {}),
    ...(query.user !== undefined ? { user: query.user } : {}),
    ...(query.state !== undefined ? { states: query.state } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.until !== undefined ? { until: query.until } : {}),
  });
  const runs: RunData[] = [...live.slice(0, limit).map((job) => liveRun(store, job)), ...archived.map(archivedRunData)];
  return runs
    .sort((a, b) => b.job.run - a.job.run)
    .slice(0, limit)
    .map((run) => runInfo(run, { worker: (id) => store.worker(id), now }));
}

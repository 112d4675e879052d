/**
 * Plain-text views of the queue (`iris queue`) and of a dry-run estimate (`iris submit
 * --dry-run`). `now` is a parameter so the output is testable.
 */
import { DEFAULT_BAND } from '../model/band.js';
import type {
  EstimateResponse,
  QueueEntry,
  QueueInfo,
  RuntimeEstimateInfo,
  UsageInfo,
  UserShareInfo,
} from '../api/types.js';
import { formatBytes } from '../model/resources.js';
import { formatAge, formatDuration, formatInstant, formatReason } from './format.js';
import { renderFields, renderTable } from './table.js';
import { runsInFields } from './runs-in.js';
import { unknownQueue } from '../model/queues.js';

/** `now`, `14:03:20 (in 3m10s)` (`2025-01-03 09:00 (in 21h00m)` on another day) or `-`. */
export function formatStart(start: number | null, now: number): string {
  if (start === null) return '-';
  if (start <= now) return 'now';
  return `${formatInstant(start, now)} (in ${formatDuration(start - now)})`;
}

/**
 * What the planner plans a task to run: `~4m05s (predicted from 2 runs)`, `by 1d (time limit)`,
 * `no limit`.
 */
export function formatEstimate(estimate: RuntimeEstimateInfo): string {
  if (estimate.durationMs === null) return 'no limit';
  const duration = formatDuration(estimate.durationMs);
  if (estimate.source === 'limit') return `by ${duration} (time limit)`;
  return `~${duration} (predicted from ${estimate.runs} run${estimate.runs === 1 ? '' : 's'})`;
}

/** A queue entry's estimate; an older cluster gives none: its time limit. */
function entryEstimate(j: QueueEntry): string {
  if (j.estimate) return formatEstimate(j.estimate);
  return formatEstimate({ durationMs: j.timeLimitMs, source: 'limit', runs: 0 });
}

/** `policy easy, queue depth 32` (`, reservation depth 64` under hybrid). */
function policyLine(q: Pick<QueueInfo, 'policy' | 'queueDepth' | 'reservationDepth'>): string {
  return (
    `policy ${q.policy}, queue depth ${q.queueDepth}` +
    (q.policy === 'hybrid' ? `, reservation depth ${q.reservationDepth}` : '')
  );
}

/**
 * The queue with only the jobs of named queue `name` (`iris queue --queue NAME`); an unknown name
 * is refused with the known ones.
 */
export function onlyQueue(queue: QueueInfo, name: string): QueueInfo {
  const named = queue.queues ?? [];
  const found = named.find((q) => q.name === name);
  if (!found) throw unknownQueue(named, name);
  return { ...queue, queues: [found], jobs: queue.jobs.filter((j) => j.queue === name) };
}

/**
 * The pending jobs in order; `byQueue` (default: with 2+ named queues): a heading per named
 * queue (its policy and workers) over its jobs. One queue reads as it always has.
 */
export function renderQueue(queue: QueueInfo, now: number, byQueue = (queue.queues?.length ?? 0) >= 2): string {
  const named = queue.queues ?? [];
  if (!byQueue || named.length === 0) return `${policyLine(queue)}\n${queueTable(queue.jobs, now)}`;
  return named
    .map((q) => {
      const heading = `queue ${q.name}: ${policyLine(q)}, workers ${q.workers}${q.default ? ' (default)' : ''}`;
      return `${heading}\n${queueTable(
        queue.jobs.filter((j) => j.queue === q.name),
        now,
      )}`;
    })
    .join('\n\n');
}

function queueTable(jobs: readonly QueueEntry[], now: number): string {
  return renderTable(
    jobs,
    [
      { header: '#', value: (j) => String(j.position), right: true },
      { header: 'JOB', value: (j) => j.job },
      { header: 'USER', value: (j) => j.user },
      { header: 'BAND', value: (j) => j.band ?? DEFAULT_BAND },
      { header: 'TASKS', value: (j) => String(j.pendingTasks), right: true },
      { header: 'WAITING', value: (j) => formatAge(j.submittedAt, now) },
      { header: 'ESTIMATE', value: entryEstimate },
      { header: 'RESERVED START', value: (j) => formatStart(j.reservedStart, now) },
      { header: 'REASON', value: (j) => formatReason(j.reason ?? '', now) },
    ],
    'no pending jobs',
  );
}

/** `2 CPU, 512MiB, 1 accelerator`; `-` for nothing. */
function formatUsage(u: UsageInfo): string {
  if (u.cpu === 0 && u.memoryBytes === 0 && u.accelerators === 0) return '-';
  const parts = [`${u.cpu} CPU`, formatBytes(u.memoryBytes)];
  if (u.accelerators > 0) parts.push(`${u.accelerators} accelerator${u.accelerators === 1 ? '' : 's'}`);
  return parts.join(', ');
}

/** `cpu 8, memory 32GiB, weight 2, hard`; `-` without a quota; `weight 2` for a weight alone. */
function formatQuota(q: UserShareInfo['quota']): string {
  if (q === null) return '-';
  const parts: string[] = [];
  if (q.cpu !== null) parts.push(`cpu ${q.cpu}`);
  if (q.memoryBytes !== null) parts.push(`memory ${formatBytes(q.memoryBytes)}`);
  if (q.accelerators !== null) parts.push(`accelerators ${q.accelerators}`);
  if (q.weight !== 1) parts.push(`weight ${q.weight}`);
  if (q.hard) parts.push('hard');
  return parts.length > 0 ? parts.join(', ') : '-';
}

/** `iris queue --users`: per user their running usage, quota, weighted share and borrowed part. */
export function renderUsers(users: readonly UserShareInfo[]): string {
  return renderTable(
    users,
    [
      { header: 'USER', value: (u) => u.user },
      { header: 'RUNNING', value: (u) => formatUsage(u.running) },
      { header: 'QUOTA', value: (u) => formatQuota(u.quota) },
      { header: 'SHARE', value: (u) => `${(u.share * 100).toFixed(1)}%`, right: true },
      {
        header: 'BORROWED',
        value: (u) =>
          u.borrowedTasks === 0
            ? '-'
            : `${formatUsage(u.borrowed)} (${u.borrowedTasks} task${u.borrowedTasks === 1 ? '' : 's'})`,
      },
    ],
    'no running work and no quotas',
  );
}

export function renderEstimate(estimate: EstimateResponse): string {
  // Starting now may need a preemption first: the reason says so (`would start by preempting …`).
  const when =
    estimate.start === null
      ? 'no start time can be given'
      : estimate.start <= estimate.now
        ? estimate.reason.startsWith('would start')
          ? estimate.reason
          : 'would start now'
        : `would start at ${formatStart(estimate.start, estimate.now)}`;
  const startsNow = estimate.start !== null && estimate.start <= estimate.now;
  const why = startsNow ? '' : `\n  why: ${formatReason(estimate.reason, estimate.now)}`;
  const over = estimate.supersedes
    ? `\n  new run: ${estimate.name} has ended (run ${estimate.supersedes.run}, ${estimate.supersedes.state}` +
      `); submitting starts a new run and keeps run ${estimate.supersedes.run} in \`iris history\``
    : '';
  const waits = estimate.waitsFor
    ? `\n  first: ${estimate.waitsFor} (the time above assumes its dependencies are met now)`
    : '';
  const runtime = estimate.runtime ? `\n  runtime: ${formatEstimate(estimate.runtime)}` : '';
  const runs = estimate.runsIn
    ? `\n${renderFields(runsInFields(estimate.runsIn))
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n')}`
    : '';
  return (
    `${estimate.name} (${estimate.tasks} task${estimate.tasks === 1 ? '' : 's'}): ${when} under policy ` +
    `${estimate.policy}${why}${runtime}${waits}${over}${runs}\n  (dry run: nothing was submitted)`
  );
}

/**
 * `iris status JOB`: the job's fields, one row per task with its current attempt, then every
 * attempt (worker, exit code, duration, measured usage `cpu 1.2s · peak 45MiB` (ui/usage.ts),
 * reason; `log cut at 1GiB` when its output passed the log limit), how adaptive placement chose each
 * scored attempt's worker (`adaptive: 3 candidates, λ 0.8, score 0.74 (next w2 0.61)`), the latest requeue events
 * (why a task went back to the queue, model/requeue.ts), then the stages and the children.
 */
import { renderStages } from './pipeline.js';
import type { AttemptInfo, ExecSummary, JobDetail, RequeueSummary, TaskInfo } from '../api/types.js';
import { describeDecision } from '../model/placement-decision.js';
import { formatBytes } from '../model/resources.js';
import { formatConstraint } from '../model/constraints.js';
import { PLAIN, type Style } from './colour.js';
import { formatAge, formatCores, formatDuration, formatMemory, formatReason, formatSpan } from './format.js';
import { formatTaskCounts, liveBelowText } from './jobs-tree.js';
import { renderFields, renderTable, type Field } from './table.js';
import { formatUsage } from './usage.js';
import { runsInFields } from './runs-in.js';

const dash = (value: string | number | null | undefined) =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/** The attempt's reason, and that its log was cut when it was. */
function attemptReason(attempt: AttemptInfo): string {
  const cut =
    attempt.logCutBytes === null || attempt.logCutBytes === undefined
      ? null
      : `log cut at ${formatBytes(attempt.logCutBytes, { trimZero: true })}`;
  return [attempt.reason, cut].filter(Boolean).join('; ');
}

/** ` (backoff 1s doubling to 10s)` for a job with a retry backoff, else nothing. */
function backoffText(job: JobDetail): string {
  if (!job.retryBackoffMs) return '';
  return (
    ` (backoff ${formatDuration(job.retryBackoffMs)} doubling to ` +
    `${formatDuration(job.retryBackoffMaxMs ?? job.retryBackoffMs)})`
  );
}

/** ` (2 jobs below it still running or pending)` for an ended job with jobs below it still live (liveBelowText). */
function liveBelow(job: JobDetail): string {
  const text = liveBelowText(job);
  return text ? ` (${text})` : '';
}

export function renderJobDetail(job: JobDetail, now: number, style: Style = PLAIN): string {
  const fields: Field[] = [
    ['Job', job.name],
    ['Run', job.archived ? `${job.run} (an older run of ${job.name}, kept in the archive)` : String(job.run)],
    ['State', job.state + liveBelow(job), (state) => style.state(job.state) + state.slice(job.state.length)],
  ];
  if (job.reason) fields.push([job.state === 'PENDING' ? 'Pending reason' : 'Reason', formatReason(job.reason, now)]);
  if (job.cause) fields.push(['Cause', `${job.cause.kind} (parent: ${job.cause.parent})`]);
  // The default condition `ok` is left out, as it is typed: `/prep, /clean:any`.
  if (job.after?.length)
    fields.push(['After', job.after.map((d) => (d.condition === 'ok' ? d.job : `${d.job}:${d.condition}`)).join(', ')]);
  fields.push(
    ['User', job.submitter ? `${job.user} (submitted by ${job.submitter} for ${job.user})` : job.user],
    ...(job.band ? [['Band', job.band] as [string, string]] : []),
    ...(job.queue ? [['Queue', job.queue] as [string, string]] : []),
    ['Command', job.command.map(quoteArg).join(' ')],
    ...(job.runsIn ? runsInFields(job.runsIn) : []),
    ['Tasks', `${formatTaskCounts(job.tasks)} (replicas ${job.replicas})`],
    // resources.cpu is in cores on the wire (JobDetail), unlike WorkerInfo's cpuMillis.
    [
      'Resources',
      `cpu ${formatCores(Math.round(job.resources.cpu * 1000))} memory ${formatMemory(job.resources.memoryBytes)}` +
        ` device ${job.resources.device}`,
    ],
  );
  if (job.stage) fields.push(['Stage', `${job.stage.name} of pipeline ${job.parent}`]);
  if (job.category || job.uses?.length)
    fields.push([
      'Workload',
      [job.category, job.uses?.length ? `uses ${job.uses.join(', ')}` : null].filter(Boolean).join('; '),
    ]);
  if (job.mergeKey) fields.push(['Merge key', job.mergeKey]);
  if (job.constraints.length > 0) fields.push(['Constraints', job.constraints.map(formatConstraint).join(', ')]);
  if (job.coschedule) fields.push(['Coschedule', job.coschedule]);
  fields.push([
    'Retries',
    `max ${job.maxRetries} retries${backoffText(job)}, ${job.maxTaskFailures} task failures, ${job.maxPreemptions}` +
      ` preemptions`,
  ]);
  if (job.timeoutMs !== null) fields.push(['Time limit', formatDuration(job.timeoutMs)]);
  if (job.schedulingTimeoutMs !== null) fields.push(['Scheduling timeout', formatDuration(job.schedulingTimeoutMs)]);
  fields.push(
    ['Submitted', `${formatAge(job.submittedAt, now)} ago`],
    ['Duration', formatSpan(job.startedAt, job.finishedAt, now)],
  );
  if (job.requeues) fields.push(['Requeues', formatRequeueCounts(job.requeues)]);
  if (job.results)
    fields.push(['Results', `${job.results} (iris results ${job.name}${job.archived ? `@${job.run}` : ''})`]);
  const sections = [renderFields(fields), '', 'Tasks:', indent(renderTasks(job.taskList, now, style))];
  const attempts = renderAttempts(job.taskList, now, style);
  if (attempts) sections.push('', 'Attempts:', indent(attempts));
  const merged = renderMerged(job.taskList);
  if (merged) sections.push('', 'Merged:', indent(merged));
  const placements = renderPlacements(job.taskList);
  if (placements) sections.push('', 'Placement:', indent(placements));
  if (job.requeues) sections.push('', requeuesTitle(job.requeues), indent(renderRequeues(job.name, job.requeues, now)));
  if (job.execs) sections.push('', execsTitle(job.execs), indent(renderExecs(job.execs, now)));
  if (job.stages) {
    const rows = job.stages.map((s) => ({
      ...s,
      state: s.state ?? 'GONE',
      reason: s.reason && formatReason(s.reason, now),
    }));
    sections.push(
      '',
      renderStages(rows, (state) => style.state(state)),
    );
  }
  if (job.children.length > 0) {
    sections.push(
      '',
      'Children:',
      indent(
        renderTable(job.children, [
          { header: 'JOB', value: (c) => c.name },
          { header: 'STATE', value: (c) => c.state, paint: (cell) => style.state(cell) },
          { header: 'TASKS', value: (c) => formatTaskCounts(c.tasks) },
          { header: 'REASON', value: (c) => formatReason(c.reason ?? '', now) },
        ]),
      ),
    );
  }
  return sections.join('\n');
}

function execsTitle(execs: ExecSummary): string {
  return execs.recent.length < execs.total ? `Execs (latest ${execs.recent.length} of ${execs.total}):` : 'Execs:';
}

/**
 * The latest `iris exec` events, oldest first: when, into which attempt, by whom, the command (escaped by the table).
 */
function renderExecs(execs: ExecSummary, now: number): string {
  return renderTable(execs.recent, [
    { header: 'WHEN', value: (e) => `${formatAge(e.time, now)} ago` },
    { header: 'TASK', value: (e) => `${e.task.slice(e.task.lastIndexOf('/') + 1)}#${e.attempt}` },
    { header: 'BY', value: (e) => (e.by.kind === 'owner' ? `owner (${e.by.user})` : e.by.task) },
    { header: 'COMMAND', value: (e) => `${e.tty ? '(tty) ' : ''}${e.command.map(quoteArg).join(' ')}` },
  ]);
}

/** `3 (retry 2, sticky_worker_busy 1)`: the run's requeue events by reason, most first. */
export function formatRequeueCounts(requeues: RequeueSummary): string {
  const parts = Object.entries(requeues.byReason)
    .sort((a, b) => b[1]! - a[1]! || (a[0] < b[0] ? -1 : 1))
    .map(([reason, n]) => `${reason} ${n}`);
  return `${requeues.total} (${parts.join(', ')})`;
}

function requeuesTitle(requeues: RequeueSummary): string {
  return requeues.recent.length < requeues.total
    ? `Requeues (latest ${requeues.recent.length} of ${requeues.total}):`
    : 'Requeues:';
}

/** The latest requeue events, oldest first: when, which task and attempt (the job for a sticky wait), why. */
function renderRequeues(job: string, requeues: RequeueSummary, now: number): string {
  return renderTable(requeues.recent, [
    { header: 'WHEN', value: (e) => `${formatAge(e.time, now)} ago` },
    { header: 'TASK', value: (e) => e.task ?? job },
    { header: 'ATTEMPT', value: (e) => dash(e.attempt), right: true },
    { header: 'REASON', value: (e) => e.reason },
    { header: 'DETAIL', value: (e) => e.detail ?? '' },
  ]);
}

/** Every attempt of these tasks, one row each; '' when there is none. */
export function renderAttempts(tasks: readonly TaskInfo[], now: number, style: Style = PLAIN): string {
  const attempts = tasks.flatMap((task) => task.attempts.map((attempt) => ({ task, attempt })));
  if (attempts.length === 0) return '';
  return renderTable(attempts, [
    { header: 'TASK', value: (r) => r.task.id },
    { header: 'ATTEMPT', value: (r) => String(r.attempt.attempt), right: true },
    {
      header: 'STATE',
      value: (r) => (r.attempt.stopping ? `${r.attempt.state} (stopping)` : r.attempt.state),
      paint: (cell, r) => style.state(r.attempt.state) + cell.slice(r.attempt.state.length),
    },
    { header: 'WORKER', value: (r) => r.attempt.workerId },
    { header: 'EXIT', value: (r) => dash(r.attempt.exitCode), right: true },
    { header: 'DURATION', value: (r) => formatSpan(r.attempt.startedAt, r.attempt.finishedAt, now) },
    { header: 'USAGE', value: (r) => formatUsage(r.attempt) },
    { header: 'REASON', value: (r) => attemptReason(r.attempt) },
  ]);
}

/** Why each scored attempt went to its worker (model/placement-decision.ts); '' when none was scored. */
export function renderPlacements(tasks: readonly TaskInfo[]): string {
  const scored = tasks.flatMap((task) =>
    task.attempts.filter((a) => a.placement).map((attempt) => ({ task, attempt })),
  );
  if (scored.length === 0) return '';
  return renderTable(scored, [
    { header: 'TASK', value: (r) => r.task.id },
    { header: 'ATTEMPT', value: (r) => String(r.attempt.attempt), right: true },
    { header: 'WORKER', value: (r) => r.attempt.workerId },
    { header: 'DECISION', value: (r) => describeDecision(r.attempt.placement!) },
  ]);
}

export function renderTasks(tasks: readonly TaskInfo[], now: number, style: Style = PLAIN): string {
  return renderTable(
    tasks,
    [
      { header: 'TASK', value: (t) => t.id },
      { header: 'STATE', value: (t) => t.state, paint: (cell) => style.state(cell) },
      { header: 'ATTEMPT', value: (t) => String(t.attempt), right: true },
      { header: 'WORKER', value: (t) => dash(t.workerId) },
      { header: 'EXIT', value: (t) => dash(t.exitCode), right: true },
      { header: 'DURATION', value: (t) => formatSpan(t.startedAt, t.finishedAt, now) },
      { header: 'FAIL/PREEMPT', value: (t) => `${t.failures}/${t.preemptions}` },
      // A running task beyond its user's soft quota says so (it counts as batch and may be reclaimed).
      { header: 'REASON', value: (t) => formatReason(t.reason || t.borrowed || '', now) },
    ],
    'no tasks',
  );
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? '  ' + line : line))
    .join('\n');
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Which attempts ran merged (docs/architecture.md, "Task merging"): one line per such attempt,
 * `task-0 attempt 0: merged with /a/task-0, /b/task-0` (the other tasks of its batch, lead first).
 */
function renderMerged(tasks: readonly TaskInfo[]): string | null {
  const lines: string[] = [];
  for (const task of tasks) {
    for (const a of task.attempts) {
      if (!a.merged) continue;
      const others = a.merged.tasks.filter((t) => t !== task.id);
      const role = a.merged.lead === task.id ? 'lead, ' : '';
      lines.push(`task-${task.index} attempt ${a.attempt}: ${role}merged with ${others.join(', ')}`);
    }
  }
  return lines.length > 0 ? lines.join('\n') : null;
}

/**
 * The text `iris simulate` prints: a summary of a run through the iris scheduler, or the
 * per-window table of the RLScheduler compatibility mode (the JSON documents: src/sim/report.ts),
 * or the dispatch study's table (its rows as docs/simulate.md holds them: STUDY_HEADERS, studyCells).
 * Times are virtual seconds from the start of the trace, an instant in a reason too:
 * `reserved to start at 2m00s (120 s)`.
 */
import { renderInstants } from '../model/reason-instants.js';
import { formatDuration } from './format.js';
import { renderFields, renderTable } from './table.js';
import type { SimResult } from '../sim/results.js';
import type { CompatInfo, SimRunInfo } from '../sim/report.js';
import type { CompatResult } from '../sim/rlscheduler.js';
import type { MergeStudyRow, StudyResult, StudyRow } from '../sim/study.js';

const seconds = (s: number): string => `${formatDuration(s * 1000)} (${round(s, 1)} s)`;

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function renderSimulation(info: SimRunInfo, result: SimResult): string {
  const s = result.summary;
  const machine = info.procs !== null ? `${info.procs} processors` : `${info.workers} workers`;
  const fields: Array<[string, string]> = [
    [
      'Trace',
      info.trace + (info.window ? ` (jobs ${info.window.start}..${info.window.start + info.window.count - 1})` : ''),
    ],
    ['Machine', machine],
    [
      'Policy',
      `${info.policy} (queue depth ${info.queueDepth}` +
        `${info.policy === 'hybrid' ? `, reservation depth ${info.reservationDepth}` : ''})`,
    ],
    ['Placement', `${info.placement} (selection ${info.selection})`],
    ['Order', info.order],
    [
      'Jobs',
      `${s.jobs} finished${s.skipped > 0 ? `, ${s.skipped} skipped` : ''}` +
        `${s.unfinished > 0 ? `, ${s.unfinished} never started` : ''}` +
        `${s.deadlocked > 0 ? `, ${s.deadlocked} deadlocked` : ''}`,
    ],
    ['Avg wait', seconds(s.avgWait)],
    ['Avg bounded slowdown', `${s.avgBoundedSlowdown.toFixed(2)} (threshold 10 s)`],
    ['Utilization', `${(s.utilization * 100).toFixed(1)}%`],
    ['Makespan', seconds(s.makespan)],
  ];
  if (info.kind === 'iris') {
    fields.push(['Total cost', `${s.totalCost.toFixed(2)} (Σ run time × the worker's cost per hour)`]);
    fields.push(['Fleet cost', `${s.fleetCost.toFixed(2)} (the workers while enabled over the makespan)`]);
  }
  if (s.disabledWorkerHours !== null)
    fields.push(['Elastic', `${s.disabledWorkerHours.toFixed(2)} worker-hours disabled by the elastic coordinator`]);
  if (s.reuseHitRate !== null)
    fields.push([
      'Reuse hits',
      `${(s.reuseHitRate * 100).toFixed(1)}% (${s.reuseHits} of ${s.reuseStarts} task starts on a worker warm for ` +
        `their models)`,
    ]);
  if (info.waitingJobs !== undefined) {
    fields.push([
      'Waiting parents',
      `${info.waitingJobs} ${info.waitingJobs === 1 ? 'job waits' : 'jobs wait'} for their subtree, CPU ` +
        `${info.release ? 'released' : 'held (--no-release)'} while waiting`,
    ]);
    fields.push(['Deadlocks', s.deadlocked > 0 ? `${s.deadlocked} jobs can never end (below)` : 'none']);
  }
  if (info.defaultTimeLimit !== undefined) {
    const { seconds: limit, jobs } = info.defaultTimeLimit;
    fields.push([
      'Default limit',
      `${formatDuration(limit * 1000)} for the ${jobs} ${jobs === 1 ? 'job' : 'jobs'} without a time limit of ` +
        'their own (--default-time-limit)',
    ]);
  }
  if (info.predict)
    fields.push([
      'Runtimes',
      'jobs without a time limit of their own planned with runtimes predicted from their last two runs (--predict)',
    ]);
  if (s.timeLimited > 0) fields.push(['Stopped at limit', `${s.timeLimited} jobs ran longer than their time limit`]);
  if (info.preemption && s.preemption) {
    const { grace, exempt } = info.preemption;
    fields.push([
      'Preemption',
      `grace ${formatDuration(grace * 1000)}, exempt ${formatDuration(exempt * 1000)}: ${s.preemption.tasks} ` +
        `${s.preemption.tasks === 1 ? 'task' : 'tasks'} stopped, ${Math.round(s.preemption.lostCpuSeconds)} ` +
        'CPU-seconds lost',
    ]);
  }
  const lines = [renderFields(fields)];
  if (s.bands)
    lines.push(
      '',
      renderTable(s.bands, [
        { header: 'BAND', value: (b) => b.band },
        { header: 'JOBS', value: (b) => String(b.jobs), right: true },
        { header: 'WAIT MEAN (S)', value: (b) => String(Math.round(b.waitMean)), right: true },
        { header: 'MEDIAN', value: (b) => String(Math.round(b.waitMedian)), right: true },
        { header: 'P95', value: (b) => String(Math.round(b.waitP95)), right: true },
        { header: 'SLOWDOWN', value: (b) => b.slowdownMean.toFixed(2), right: true },
        { header: 'PREEMPTED', value: (b) => String(b.preemptions), right: true },
        { header: 'CPU-S LOST', value: (b) => String(Math.round(b.lostCpuSeconds)), right: true },
      ]),
    );
  const notes = [
    ...result.skipped.map((j) => ({ ...j, what: 'skipped' })),
    ...result.unfinished.map((j) => ({ ...j, what: 'never started' })),
    ...result.deadlocked.map((j) => ({ ...j, what: 'deadlocked' })),
  ];
  if (notes.length > 0) {
    const shown = notes.slice(0, 10);
    lines.push(
      '',
      renderTable(shown, [
        { header: 'JOB', value: (n) => n.name },
        { header: 'STATUS', value: (n) => n.what },
        { header: 'REASON', value: (n) => renderInstants(n.reason, seconds) },
      ]),
    );
    if (notes.length > shown.length) lines.push(`… and ${notes.length - shown.length} more (see --json)`);
  }
  return lines.join('\n');
}

export function renderCompat(info: CompatInfo, result: CompatResult): string {
  const header = renderFields([
    ['Trace', info.trace],
    [
      'Mode',
      `RLScheduler compatibility (${info.order}, ${info.backfill ? 'backfill' : 'no backfill'}) on ${info.procs}` +
        ` processors`,
    ],
  ]);
  const table = renderTable(result.windows, [
    { header: 'WINDOW', value: (w) => `${w.start}:${w.count}`, right: true },
    { header: 'AVG BOUNDED SLOWDOWN', value: (w) => w.avgBoundedSlowdown.toFixed(2), right: true },
  ]);
  return `${header}\n\n${table}\n\nMean over ${result.windows.length} windows: ${result.mean.toFixed(2)}`;
}

/** Column headers of the study table (docs/simulate.md and `iris simulate --study`). */
export const STUDY_HEADERS = [
  'placement',
  'selection',
  'elastic',
  'makespan (s)',
  'total cost',
  'cost × makespan (cost·h)',
  'mean wait (s)',
  'reuse hits',
  'disabled worker-h',
  'fleet cost',
] as const;

/** One row of the study table as text: whole seconds, cost to cents, the hit rate in percent. */
export function studyCells(row: StudyRow): string[] {
  const m = row.metrics;
  const elastic = row.elastic ? 'on' : 'off';
  return [
    row.placement,
    row.selection,
    elastic,
    m.makespan.toFixed(0),
    m.totalCost.toFixed(2),
    m.costTimesMakespan.toFixed(2),
    m.meanWait.toFixed(1),
    m.reuseHitRate === null ? '-' : `${(m.reuseHitRate * 100).toFixed(1)}%`,
    m.disabledWorkerHours === null ? '-' : m.disabledWorkerHours.toFixed(2),
    m.fleetCost.toFixed(2),
  ];
}

/** Column headers of the merging study's table (docs/simulate.md, "Task merging"). */
export const MERGE_STUDY_HEADERS = [
  'arrivals',
  'merging',
  'makespan (s)',
  'total cost',
  'mean wait (s)',
  'mean response (s)',
  'model loads',
  'merged tasks',
  'merged attempts',
] as const;

/** One row of the merging study's table as text. */
export function mergeStudyCells(row: MergeStudyRow): string[] {
  return [
    row.arrivals,
    row.merge ? 'on' : 'off',
    row.makespan.toFixed(0),
    row.totalCost.toFixed(2),
    row.meanWait.toFixed(1),
    row.meanResponse.toFixed(1),
    String(row.modelLoads),
    String(row.mergedTasks),
    String(row.batches),
  ];
}

/**
 * The dispatch study: what ran, then one row per placement mode × selection, then (when given) the
 * merging rows (docs/simulate.md, "Task merging").
 */
export function renderStudy(result: StudyResult & { merging?: MergeStudyRow[] }): string {
  const header = renderFields([
    [
      'Workload',
      `dispatch study, seed ${result.seed}: ${result.jobs} top-level jobs on ${result.workers} workers ` +
        `(docs/simulate.md)`,
    ],
    ['Policy', result.policy],
  ]);
  const columns = STUDY_HEADERS.map((title, i) => ({
    header: title.toUpperCase(),
    value: (cells: string[]) => cells[i]!,
    right: i >= 2,
  }));
  const table = renderTable(result.rows.map(studyCells), columns);
  if (!result.merging) return `${header}\n\n${table}`;
  const mergeColumns = MERGE_STUDY_HEADERS.map((title, i) => ({
    header: title.toUpperCase(),
    value: (cells: string[]) => cells[i]!,
    right: i >= 2,
  }));
  const merging = renderTable(result.merging.map(mergeStudyCells), mergeColumns);
  return `${header}\n\n${table}\n\nTask merging (adaptive, first-fit, batch of 4):\n${merging}`;
}

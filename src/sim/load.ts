/**
 * Loads a trace for `iris simulate`: `*.swf` (Standard Workload Format, on a pool of `procs`
 * processors modelled as one worker) or an iris workload file (`*.yaml`, `*.yml`, `*.json`).
 * `window` selects SWF jobs by 0-based position; the window starts with an empty machine at
 * its first job's submit time. An SWF trace is read by swf.ts; a workload file by
 * src/user-file/load.ts (its size limit and errors). `defaultTimeLimit` gives jobs without a limit
 * of their own that limit, as the live cluster's default does (workload.ts withDefaultTimeLimit).
 */
import path from 'node:path';
import { invalid } from '../model/errors.js';
import { formatOf, parseUserText, readUserText } from '../user-file/load.js';
import { readSwf, usableSwfJobs, type SwfTrace } from './swf.js';
import { parseSeconds, parseWorkload } from './workload-file.js';
import { poolWorker, withDefaultTimeLimit, type SimJob, type SimWorkload, type SkippedJob } from './workload.js';

export interface TraceWindow {
  start: number;
  count: number;
}

export interface LoadOptions {
  procs?: number;
  window?: TraceWindow;
  /** Seconds: the limit of every job without one of its own (default: its run time, the readers' rule). */
  defaultTimeLimit?: number;
}

const SKIP_TEXT: Record<string, string> = {
  'unknown-run-time': 'unknown run time (-1)',
  'no-processors': 'no processor count',
  'wider-than-machine': 'wider than the processor pool',
};

/** `START:COUNT` with START >= 0 and COUNT >= 1. */
export function parseWindow(text: string): TraceWindow {
  const match = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(text);
  const count = match ? Number(match[2]) : 0;
  if (!match || count < 1) {
    throw invalid(
      `invalid window "${text}": expected START:COUNT such as 1981:1024`,
      'START is the 0-based index of the first job; COUNT is at least 1',
    );
  }
  return { start: Number(match[1]), count };
}

/** The shortest default time limit: the planner's unit (a 0 s SWF estimate becomes 1 s too). */
export const MIN_DEFAULT_TIME_LIMIT = 1;

/** `--default-time-limit`: a duration such as 24h or 86400 (seconds), at least 1 s. */
export function parseDefaultTimeLimit(text: string): number {
  const seconds = parseSeconds(text);
  checkDefaultTimeLimit(seconds, `"${text}"`);
  return seconds;
}

function checkDefaultTimeLimit(seconds: number, shown: string): void {
  if (!(seconds >= MIN_DEFAULT_TIME_LIMIT) || !Number.isFinite(seconds))
    throw invalid(
      `invalid --default-time-limit ${shown}: expected a duration of at least 1s such as 24h`,
      "the live cluster's default is 24h (config time-limit:); jobs with a time limit of their own keep it",
    );
}

export function traceKind(file: string): 'swf' | 'iris' {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.swf') return 'swf';
  if (ext === '.yaml' || ext === '.yml' || ext === '.json') return 'iris';
  throw invalid(
    `cannot tell the format of trace ${file}`,
    'use a .swf trace or an iris workload file ending in .yaml, .yml or .json (see docs/simulate.md)',
  );
}

export async function loadWorkload(file: string, options: LoadOptions = {}): Promise<SimWorkload> {
  const limit = options.defaultTimeLimit;
  if (limit !== undefined) checkDefaultTimeLimit(limit, String(limit));
  let workload: SimWorkload;
  if (traceKind(file) === 'swf') workload = swfWorkload(await readSwf(file), file, options);
  else {
    const text = await readUserText(file);
    if (options.procs !== undefined)
      throw invalid('--procs applies to SWF traces only', 'an iris workload declares its workers in the file');
    if (options.window !== undefined) throw invalid('--window applies to SWF traces only');
    workload = parseWorkload(parseUserText(text, file, formatOf(file)), file);
  }
  return limit === undefined ? workload : { ...workload, jobs: withDefaultTimeLimit(workload.jobs, limit) };
}

/** An SWF trace as a workload: one pool worker, one single-task job per usable trace job. */
export function swfWorkload(trace: SwfTrace, source: string, options: LoadOptions = {}): SimWorkload {
  const procs = options.procs ?? trace.maxProcs;
  if (procs === null || procs === undefined) {
    throw invalid(`${source} has no MaxProcs (or MaxNodes) header`, 'give the machine size with --procs N');
  }
  if (!Number.isInteger(procs) || procs < 1)
    throw invalid(`invalid --procs ${procs}: expected a whole number of at least 1`);
  let selected = trace.jobs;
  if (options.window) {
    const { start, count } = options.window;
    if (start >= trace.jobs.length) {
      throw invalid(
        `window ${start}:${count} starts past the end of ${source} (${trace.jobs.length} jobs)`,
        'START is a 0-based job index',
      );
    }
    selected = trace.jobs.slice(start, start + count);
  }
  const usable = usableSwfJobs(selected, procs);
  const skipped: SkippedJob[] = usable.skipped.map(({ job, reason }) => ({
    name: `/job-${job.id}`,
    reason:
      reason === 'wider-than-machine'
        ? `needs ${job.procs} processors, wider than the pool of ${procs}`
        : (SKIP_TEXT[reason] ?? reason),
  }));
  const seen = new Set<string>();
  const jobs: SimJob[] = usable.jobs.map((job) => ({
    name: uniqueName(`/job-${job.id}`, job.index, seen),
    submit: job.submit,
    run: job.run,
    // The planner needs a positive duration; a 0 s estimate becomes 1 s.
    timeLimit: Math.max(1, job.requestedTime),
    replicas: 1,
    resources: { cpuMillis: job.procs * 1000, memoryBytes: 0, device: null },
    constraints: [],
    coschedule: null,
    user: job.user >= 0 ? `u${job.user}` : 'sim',
    ...(job.requestGiven ? {} : { runsOf: `u${job.user}/a${job.app}` }),
    procs: job.procs,
    index: job.index,
    children: [],
  }));
  const order = jobs.map((job, i) => ({ job, i }));
  order.sort((a, b) => a.job.submit - b.job.submit || a.i - b.i);
  return { source, kind: 'swf', workers: [poolWorker(procs)], jobs: order.map((o) => o.job), skipped, procs };
}

/** SWF ids are normally unique; a repeated id gets its trace position appended. */
function uniqueName(name: string, index: number, seen: Set<string>): string {
  const out = seen.has(name) ? `${name}-${index}` : name;
  seen.add(out);
  return out;
}

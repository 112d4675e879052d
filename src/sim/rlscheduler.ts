/**
 * RLScheduler compatibility mode: replays SWF windows the way the simulator behind Zhang et
 * al., "RLScheduler" (SC 2020), Table V does, so its published heuristic results can be
 * reproduced exactly. It is deliberately NOT iris's planner: it is a small greedy loop with
 * that simulator's event semantics. See docs/simulate.md, "RLScheduler compatibility mode".
 *
 * Workload preparation (as that simulator loads a trace): a run time below 0 becomes 10 s
 * (the requested time stays as read, so -1/-1 keeps an estimate of -1); jobs whose run time
 * is then 0 are dropped; the rest are ordered by job id. Window start indices refer to this
 * prepared list (for lublin_256.swf it equals the file, which has no such jobs).
 *
 * Each window starts with an empty machine at its first job's submit time; only its `count`
 * jobs arrive. Event semantics (one event = one arrival or one completion):
 *  - Next event: the earliest actual completion among running jobs; the next arrival of the
 *    window goes first when its submit time is <= that completion. Completions are handled
 *    one job at a time, in the order of a stable sort of the running list by end time.
 *  - Choosing: the queue is stably sorted by the order's key and its head is committed. If it
 *    does not fit, events are processed until it does; arrivals join the queue but never
 *    displace the committed head. After starting it, if the queue is empty the clock moves
 *    to the next arrival (processing completions on the way) and one arrival is queued.
 *  - Backfilling: when the committed head is blocked, its reserved time is computed once:
 *    running jobs in order of start + requested time are released (on paper) until enough
 *    processors are free; the last one's estimated end is the time. Then, before each event,
 *    the queue is stably sorted by submit time and every job that fits now and whose
 *    requested time ends strictly before the reserved time is started (one pass, no
 *    extra-processor rule, the time is never recomputed).
 *  - Jobs run for their actual run time; the requested time is only the estimate.
 * Metric: bounded slowdown max(1, (wait + run) / max(run, 10)) averaged per window, then the
 * mean over windows.
 */
import { IrisError, invalid } from '../model/errors.js';
import { boundedSlowdown } from './metrics.js';
import { orderScore, type OrderName } from './scores.js';
import type { SwfJob } from './swf.js';

/** 0-based start indices of the ten 1,024-job windows of the published evaluation. */
export const RLSCHEDULER_WINDOWS: readonly number[] = [1981, 2756, 4299, 8850, 3316, 2714, 5228, 7762, 4022, 7085];
export const RLSCHEDULER_WINDOW_JOBS = 1024;

export interface CompatOptions {
  procs: number;
  order: OrderName;
  backfill: boolean;
  /** Default: RLSCHEDULER_WINDOWS, each of RLSCHEDULER_WINDOW_JOBS jobs. */
  windows?: Array<{ start: number; count: number }>;
}

export interface CompatJobResult {
  id: number;
  submit: number;
  start: number;
  wait: number;
  run: number;
  procs: number;
}

export interface CompatWindowResult {
  start: number;
  count: number;
  avgBoundedSlowdown: number;
  /** In trace order. */
  jobs: CompatJobResult[];
}

export interface CompatResult {
  windows: CompatWindowResult[];
  mean: number;
}

/** The trace as RLScheduler's loader sees it (see the module comment). */
export function rlschedulerWorkload(jobs: readonly SwfJob[]): SwfJob[] {
  const prepared: SwfJob[] = [];
  for (const job of jobs) {
    const run = job.run < 0 ? 10 : job.run;
    if (run > 0) prepared.push(run === job.run ? job : { ...job, run });
  }
  return prepared.sort((a, b) => a.id - b.id);
}

export function simulateRlscheduler(jobs: readonly SwfJob[], options: CompatOptions): CompatResult {
  if (!Number.isInteger(options.procs) || options.procs <= 0) {
    throw invalid(`the machine needs a positive whole number of processors, got ${options.procs}`, 'pass --procs N');
  }
  const workload = rlschedulerWorkload(jobs);
  const windows = options.windows ?? RLSCHEDULER_WINDOWS.map((start) => ({ start, count: RLSCHEDULER_WINDOW_JOBS }));
  if (windows.length === 0) throw invalid('no windows to simulate');
  const results = windows.map((w) => simulateWindow(workload, w, options));
  const mean = results.reduce((sum, w) => sum + w.avgBoundedSlowdown, 0) / results.length;
  return { windows: results, mean };
}

interface Pending {
  job: SwfJob;
  /** Sort key under the chosen order (RLScheduler's tuple for sjf). */
  key1: number;
  key2: number;
}

interface Running {
  procs: number;
  end: number;
  estimatedEnd: number;
}

function checkWindow(workload: readonly SwfJob[], window: { start: number; count: number }, procs: number): void {
  const { start, count } = window;
  if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 1) {
    throw invalid(`window ${start}:${count} is not START:COUNT with START >= 0 and COUNT >= 1`);
  }
  if (start + count > workload.length) {
    throw invalid(
      `window ${start}:${count} runs past the end of the trace (${workload.length} usable jobs)`,
      'choose a smaller START or COUNT',
    );
  }
  for (let i = start; i < start + count; i++) {
    const job = workload[i]!;
    if (job.procs < 0) throw invalid(`job ${job.id} gives no processor count (fields 5 and 8 are -1)`);
    if (job.procs > procs) {
      throw invalid(
        `job ${job.id} needs ${job.procs} processors but the machine has ${procs}; it could never start`,
        'pass a larger --procs or a window without that job',
      );
    }
  }
}

function simulateWindow(
  workload: readonly SwfJob[],
  window: { start: number; count: number },
  options: CompatOptions,
): CompatWindowResult {
  checkWindow(workload, window, options.procs);
  const last = window.start + window.count;
  const keyOf = (job: SwfJob): Pending =>
    options.order === 'sjf'
      ? { job, key1: job.requestedTime, key2: job.submit }
      : { job, key1: orderScore(options.order, job), key2: 0 };
  const byKey = (a: Pending, b: Pending) => a.key1 - b.key1 || a.key2 - b.key2;
  const bySubmit = (a: Pending, b: Pending) => a.job.submit - b.job.submit;
  const byEnd = (a: Running, b: Running) => a.end - b.end;
  const byEstimatedEnd = (a: Running, b: Running) => a.estimatedEnd - b.estimatedEnd;

  let now = workload[window.start]!.submit;
  let free = options.procs;
  let next = window.start + 1;
  let queue: Pending[] = [keyOf(workload[window.start]!)];
  const running: Running[] = [];
  const started = new Map<SwfJob, number>();

  const start = (p: Pending) => {
    started.set(p.job, now);
    running.push({ procs: p.job.procs, end: now + p.job.run, estimatedEnd: now + p.job.requestedTime });
    free -= p.job.procs;
  };
  /** One event: the next arrival if it is not after the next completion, else one completion. */
  const step = () => {
    running.sort(byEnd);
    const first = running[0];
    const release = first ? first.end : Infinity;
    if (next < last && workload[next]!.submit <= release) {
      now = Math.max(now, workload[next]!.submit);
      queue.push(keyOf(workload[next]!));
      next++;
    } else if (first) {
      now = Math.max(now, first.end);
      free += first.procs;
      running.shift();
    } else {
      throw new IrisError('internal', 'RLScheduler compatibility: blocked with nothing running and nothing to arrive');
    }
  };
  const reservedTime = (procs: number): number => {
    running.sort(byEstimatedEnd);
    let available = free;
    let time = now;
    for (const r of running) {
      available += r.procs;
      time = r.estimatedEnd;
      if (available >= procs) break;
    }
    return time;
  };
  const backfill = (shadow: number) => {
    queue.sort(bySubmit);
    const kept: Pending[] = [];
    for (const p of queue) {
      if (now + p.job.requestedTime < shadow && p.job.procs <= free) start(p);
      else kept.push(p);
    }
    queue = kept;
  };

  for (;;) {
    queue.sort(byKey);
    const head = queue[0]!;
    if (head.job.procs > free) {
      const shadow = options.backfill ? reservedTime(head.job.procs) : 0;
      while (head.job.procs > free) {
        if (options.backfill) backfill(shadow);
        step();
      }
    }
    start(head);
    queue.splice(queue.indexOf(head), 1);
    if (queue.length === 0) {
      if (next >= last) break;
      while (queue.length === 0) step();
    }
  }

  const jobs: CompatJobResult[] = [];
  let total = 0;
  for (let i = window.start; i < last; i++) {
    const job = workload[i]!;
    const at = started.get(job)!;
    const wait = at - job.submit;
    total += boundedSlowdown(wait, job.run);
    jobs.push({ id: job.id, submit: job.submit, start: at, wait, run: job.run, procs: job.procs });
  }
  return { start: window.start, count: window.count, avgBoundedSlowdown: total / window.count, jobs };
}

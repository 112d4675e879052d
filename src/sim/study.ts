/**
 * The dispatch study (issue 15 §6, docs/simulate.md "Dispatch study"): a seeded workload of a
 * heterogeneous pool with inference, training and fine-tune pipelines sharing a handful of
 * models, run through every placement mode × selection.
 *
 * Guarantees: the workload is a pure function of the seed (mulberry32, below; times in whole
 * seconds), so the table in docs/simulate.md is reproduced exactly by test/sim/study.test.ts
 * (its cells as text: ui/simulation.ts). The engine, the scheduler and the metrics are the ones
 * `iris simulate` uses.
 */
import { simulate } from './engine.js';
import { PLACEMENT_MODES, SELECTIONS, createScheduler, type PlacementMode, type Selection } from './policy.js';
import { DEFAULT_QUEUE_OPTIONS, type QueuePolicy } from '../cluster/scheduler/queue/options.js';
import type { JobCategory } from '../model/workload.js';
import { DEFAULT_SIM_ELASTIC } from './elastic.js';
import type { SimJob, SimWorker, SimWorkload } from './workload.js';

export const DEFAULT_STUDY_SEED = 1;
const GIB = 1024 ** 3;

/**
 * mulberry32: a small seeded generator (the one bench/prng.mjs uses), numbers in [0, 1). Same
 * seed, same sequence, on every platform (32-bit integer arithmetic only).
 */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Load time (s) of each model the study's jobs use; fine-tune outputs (`ft-K`) are added per pipeline. */
export const STUDY_MODELS: Readonly<Record<string, number>> = {
  'llama-70b': 360,
  'llama-8b': 90,
  'mistral-7b': 75,
  whisper: 30,
  embed: 20,
};
/** Load time (s) of a fine-tune's output (adapter weights) for its evaluations. */
const ADAPTER_LOAD = 45;
/** The longest run of an `infer-i` request (s). */
const INFER_MAX_RUN = 480;
/** Jobs arrive over the first two hours. */
const HORIZON = 7200;

function gpuWorkers(
  name: string,
  count: number,
  variant: string,
  gpus: number,
  gpuMemoryGiB: number,
  cpu: number,
  memoryGiB: number,
  cost: number,
): SimWorker[] {
  return Array.from({ length: count }, (_, k) => ({
    id: `${name}-${k}`,
    cpuMillis: cpu * 1000,
    memoryBytes: memoryGiB * GIB,
    device: { type: 'gpu', variant, count: gpus, memoryBytes: gpuMemoryGiB * GIB },
    attributes: { 'device-type': 'gpu', 'device-variant': variant },
    costPerHour: cost,
  }));
}

/** The pool: 2 × 8×H100 80GiB at 12/h, 8 × 1×L4 24GiB at 1.2/h, 4 CPU hosts at 0.3/h, big hosts first. */
export function studyWorkers(): SimWorker[] {
  const cpuHosts: SimWorker[] = Array.from({ length: 4 }, (_, k) => ({
    id: `cpu-${k}`,
    cpuMillis: 16_000,
    memoryBytes: 64 * GIB,
    device: { type: 'cpu', variant: null, count: 0 },
    attributes: { 'device-type': 'cpu' },
    costPerHour: 0.3,
  }));
  return [
    ...gpuWorkers('h100', 2, 'H100', 8, 80, 96, 1024, 12),
    ...gpuWorkers('l4', 8, 'L4', 1, 24, 8, 32, 1.2),
    ...cpuHosts,
  ];
}

interface JobShape {
  name: string;
  submit: number;
  run: number;
  category: JobCategory;
  uses: string[];
  cpu: number;
  memoryGiB: number;
  gpus?: { count: number; memoryGiB: number };
  needs?: string[];
}

function job(shape: JobShape, models: Record<string, number>): SimJob {
  const load = shape.uses.reduce((sum, key) => sum + models[key]!, 0);
  return {
    name: `/${shape.name}`,
    submit: shape.submit,
    run: shape.run,
    // As a workload file without time-limit: the run plus the load of what it uses.
    timeLimit: shape.run + load,
    replicas: 1,
    resources: {
      cpuMillis: shape.cpu * 1000,
      memoryBytes: shape.memoryGiB * GIB,
      device: shape.gpus
        ? { type: 'gpu', variant: null, count: shape.gpus.count, memoryBytes: shape.gpus.memoryGiB * GIB }
        : null,
    },
    constraints: [],
    coschedule: null,
    user: 'study',
    procs: shape.cpu,
    children: [],
    category: shape.category,
    uses: shape.uses,
    ...(shape.needs ? { needs: shape.needs.map((n) => `/${n}`) } : {}),
  };
}

/**
 * The study's workload for `seed` (docs/simulate.md lists its parts): an inference stream on
 * small models, large-model inference, CPU embedding batches, full training runs and fine-tune
 * pipelines (train, then two evaluations that use its output).
 */
export function studyWorkload(seed = DEFAULT_STUDY_SEED): SimWorkload {
  const random = prng(seed);
  const between = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const models: Record<string, number> = { ...STUDY_MODELS };
  const shapes: JobShape[] = [];
  const small = ['llama-8b', 'llama-8b', 'mistral-7b', 'mistral-7b', 'whisper'];
  for (let t = between(0, 60), i = 0; t < HORIZON; t += between(20, 70), i++) {
    shapes.push({
      name: `infer-${i}`,
      submit: t,
      run: between(120, INFER_MAX_RUN),
      category: 'inference',
      uses: [pick(small)],
      cpu: 4,
      memoryGiB: 16,
      gpus: { count: 1, memoryGiB: 16 },
    });
  }
  for (let i = 0; i < 8; i++) {
    shapes.push({
      name: `infer-70b-${i}`,
      submit: between(0, HORIZON),
      run: between(300, 900),
      category: 'inference',
      uses: ['llama-70b'],
      cpu: 16,
      memoryGiB: 256,
      gpus: { count: 4, memoryGiB: 80 },
    });
  }
  for (let i = 0; i < 24; i++) {
    shapes.push({
      name: `embed-${i}`,
      submit: between(0, HORIZON),
      run: between(180, 600),
      category: 'inference',
      uses: ['embed'],
      cpu: 4,
      memoryGiB: 8,
    });
  }
  for (let i = 0; i < 3; i++) {
    shapes.push({
      name: `train-${i}`,
      submit: between(0, HORIZON / 2),
      run: between(1800, 3600),
      category: 'training',
      uses: ['llama-8b'],
      cpu: 64,
      memoryGiB: 512,
      gpus: { count: 8, memoryGiB: 80 },
    });
  }
  for (let i = 0; i < 6; i++) {
    const submit = between(0, HORIZON);
    const adapter = `ft-${i}`;
    models[adapter] = ADAPTER_LOAD;
    shapes.push({
      name: `ft-${i}-train`,
      submit,
      run: between(900, 1800),
      category: 'training',
      uses: [pick(['llama-8b', 'mistral-7b'])],
      cpu: 8,
      memoryGiB: 24,
      gpus: { count: 1, memoryGiB: 20 },
    });
    for (const set of ['a', 'b']) {
      shapes.push({
        name: `ft-${i}-eval-${set}`,
        submit,
        run: between(120, 300),
        category: 'inference',
        uses: [adapter],
        cpu: 4,
        memoryGiB: 16,
        gpus: { count: 1, memoryGiB: 16 },
        needs: [`ft-${i}-train`],
      });
    }
  }
  const jobs = shapes.map((shape) => job(shape, models));
  const order = jobs.map((one, i) => ({ one, i }));
  order.sort((a, b) => a.one.submit - b.one.submit || a.i - b.i);
  return {
    source: `study (seed ${seed})`,
    kind: 'iris',
    workers: studyWorkers(),
    jobs: order.map((o) => o.one),
    skipped: [],
    procs: null,
    models,
  };
}

export interface StudyMetrics {
  jobs: number;
  unfinished: number;
  /** Seconds. */
  makespan: number;
  totalCost: number;
  /** totalCost × makespan in hours. */
  costTimesMakespan: number;
  /** Seconds. */
  meanWait: number;
  reuseHitRate: number | null;
  /** Worker-hours the elastic coordinator kept disabled; null without it. */
  disabledWorkerHours: number | null;
  /** The workers' cost while enabled over the makespan (what a fleet billed by the hour pays). */
  fleetCost: number;
}

export interface StudyRow {
  placement: PlacementMode;
  selection: Selection;
  /** The elastic coordinator ran (default settings, as config `elastic: {enabled: true}`). */
  elastic: boolean;
  metrics: StudyMetrics;
}

export interface StudyOptions {
  seed?: number;
  policy?: QueuePolicy;
  queueDepth?: number;
  reservationDepth?: number;
}

export interface StudyResult {
  seed: number;
  policy: QueuePolicy;
  workers: number;
  jobs: number;
  rows: StudyRow[];
}

/** One row of the merging study (docs/simulate.md, "Task merging"): adaptive, first-fit, no elastic coordinator. */
export interface MergeStudyRow {
  /** steady: the study's stream (one request every 20–70 s); bursts: the same requests, each
   * submitted at the start of its 10-minute window (a burst of about 12 every 10 minutes). */
  arrivals: MergeArrivals;
  merge: boolean;
  makespan: number;
  totalCost: number;
  meanWait: number;
  /** Mean submit-to-end time of the jobs (s): what a request's caller waits for its answer. */
  meanResponse: number;
  /** Jobs stopped at their time limit (a merged attempt runs under its lead's). */
  timeLimited: number;
  /** Task starts that loaded a model (a cold worker for some key the job uses). */
  modelLoads: number;
  /** Tasks that ran as members of a merged attempt (each a start saved). */
  mergedTasks: number;
  /** Merged attempts started. */
  batches: number;
}

export type MergeArrivals = 'steady' | 'bursts';

/** The window a bursty request waits for: requests submitted within one arrive together at its start. */
const BURST_WINDOW = 600;

/**
 * The study's workload with a merge key on each `infer-i` request (the model it uses, so requests
 * for one model merge) and a time limit that covers any batch (the longest request, 480 s, plus
 * the model's load: a merged attempt runs under its lead's limit), under adaptive placement
 * (first-fit selection, policy easy, no elastic coordinator): merging off, then on with the
 * cluster's default batch of 4 — for the steady stream and again with the same requests in bursts.
 */
export function runMergeStudy(options: StudyOptions = {}): { seed: number; rows: MergeStudyRow[] } {
  const seed = options.seed ?? DEFAULT_STUDY_SEED;
  const base = studyWorkload(seed);
  const rows: MergeStudyRow[] = [];
  for (const arrivals of ['steady', 'bursts'] as const) {
    const workload: SimWorkload = {
      ...base,
      jobs: base.jobs.map((j) =>
        /^\/infer-\d+$/.test(j.name) && j.uses?.length === 1
          ? {
              ...j,
              submit: arrivals === 'bursts' ? Math.floor(j.submit / BURST_WINDOW) * BURST_WINDOW : j.submit,
              mergeKey: j.uses[0]!,
              timeLimit: INFER_MAX_RUN + (base.models?.[j.uses[0]!] ?? 0),
            }
          : j,
      ),
    };
    for (const merge of [false, true]) rows.push(mergeStudyRow(workload, arrivals, merge, options));
  }
  return { seed, rows };
}

function mergeStudyRow(
  workload: SimWorkload,
  arrivals: MergeArrivals,
  merge: boolean,
  options: StudyOptions,
): MergeStudyRow {
  const scheduler = createScheduler({
    policy: options.policy ?? 'easy',
    queueDepth: options.queueDepth,
    reservationDepth: options.reservationDepth,
    placement: { mode: 'adaptive', selection: 'first-fit', merge: { enabled: merge, maxBatch: 4 } },
  });
  const result = simulate(workload, {
    scheduler,
    queueDepth: options.queueDepth ?? DEFAULT_QUEUE_OPTIONS.queueDepth,
  });
  const s = result.summary;
  const responses = result.jobs.map((j) => j.end - j.submit);
  return {
    arrivals,
    merge,
    makespan: s.makespan,
    totalCost: s.totalCost,
    meanWait: s.avgWait,
    meanResponse: responses.reduce((a, b) => a + b, 0) / Math.max(1, responses.length),
    timeLimited: s.timeLimited,
    modelLoads: s.merging?.modelLoads ?? 0,
    mergedTasks: s.merging?.mergedTasks ?? 0,
    batches: s.merging?.batches ?? 0,
  };
}

/** Runs the study's workload through every placement mode × selection. */
export function runStudy(options: StudyOptions = {}): StudyResult {
  const seed = options.seed ?? DEFAULT_STUDY_SEED;
  const policy = options.policy ?? 'easy';
  const workload = studyWorkload(seed);
  const rows: StudyRow[] = [];
  for (const placement of PLACEMENT_MODES) {
    for (const selection of SELECTIONS) {
      for (const elastic of [false, true]) {
        const scheduler = createScheduler({
          policy,
          queueDepth: options.queueDepth,
          reservationDepth: options.reservationDepth,
          placement: { mode: placement, selection },
        });
        const queueDepth = options.queueDepth ?? DEFAULT_QUEUE_OPTIONS.queueDepth;
        const s = simulate(workload, {
          scheduler,
          queueDepth,
          ...(elastic ? { elastic: DEFAULT_SIM_ELASTIC } : {}),
        }).summary;
        rows.push({
          placement,
          selection,
          elastic,
          metrics: {
            jobs: s.jobs,
            unfinished: s.unfinished + s.skipped + s.deadlocked,
            makespan: s.makespan,
            totalCost: s.totalCost,
            costTimesMakespan: (s.totalCost * s.makespan) / 3600,
            meanWait: s.avgWait,
            reuseHitRate: s.reuseHitRate,
            disabledWorkerHours: s.disabledWorkerHours,
            fleetCost: s.fleetCost,
          },
        });
      }
    }
  }
  return { seed, policy, workers: workload.workers.length, jobs: workload.jobs.length, rows };
}

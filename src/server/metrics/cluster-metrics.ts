/**
 * The cluster's Prometheus metrics (docs/metrics.md): one prom-client Registry per cluster (never
 * the library's global one), served at GET /metrics on the socket and, when asked, on a loopback
 * port (http-port.ts).
 *
 * Guarantees:
 * - Gauges (jobs, tasks and workers by state, live tasks by band and state, queue length (by named
 *   queue when the config has `queues:`), waiting jobs, cost per hour of READY workers, power
 *   drawn) are computed from the store at scrape time, so they are never stale. Energy
 *   (energy-meter.ts) is charged up to the scrape. Every band and live task state is present from
 *   the start (0 when empty).
 * - Counters move on committed store events only (the store emits after commit): dispatches,
 *   reuse hits, requeues by reason, failures by cause. Every requeue reason and failure cause is
 *   present from the start with 0, so a rate() over them works before the first event.
 * - Worker states are read from the store as they come: a state added later (e.g. DISABLED)
 *   shows up without a change here, and a state once seen stays in the output (0 when empty).
 * - prom-client's default process metrics (CPU, memory, event loop lag, …) are included with
 *   the `iris_` prefix.
 * - The exposition text and `families()` (the metrics file, metrics-file.ts) read the one registry
 *   the same way: at one cluster state they hold the same names, labels and values.
 * - `onChange` listeners hear of every store event, requeue and pass the metrics count, after
 *   the metrics have counted it.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';
import type { PassObserver } from '../../cluster/controller/pass-loop.js';
import type { ClusterStore } from '../../cluster/state/store.js';
import type { MetricFamily } from '../../api/metrics.js';
import { REQUEUE_REASONS } from '../../model/requeue.js';
import { enabledCostPerHour } from '../../model/types.js';
import { JOB_STATES, TASK_STATES, isFinalJobState, type TaskState } from '../../model/states.js';
import { BANDS, bandOf } from '../../model/band.js';
import { EventDeriver, FAILURE_CAUSES, type Increments } from './derive.js';
import { EnergyMeter } from './energy-meter.js';

// prom-client's classes from their own files, not its index: the index also loads its
// Pushgateway (node:http, node:https with TLS, node:zlib) and its cluster aggregator, which the
// cluster never uses; with undici (server.ts) they held ~8 MB of the idle cluster's RSS
// (docs/benchmarks.md, "Memory").
const requireLib = createRequire(import.meta.url);
const Registry = requireLib('prom-client/lib/registry') as typeof Prom.Registry;
const Counter = requireLib('prom-client/lib/counter') as typeof Prom.Counter;
const Gauge = requireLib('prom-client/lib/gauge') as typeof Prom.Gauge;
const Histogram = requireLib('prom-client/lib/histogram') as typeof Prom.Histogram;
const collectDefaultMetrics = requireLib('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics;
type Counter<T extends string = string> = Prom.Counter<T>;
type Histogram = Prom.Histogram;

/** Scheduling pass duration buckets, in seconds (0.1 ms to 5 s). */
const PASS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const POOL_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];
const SCORE_BUCKETS = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];

export class ClusterMetrics implements PassObserver {
  readonly registry = new Registry();
  private readonly passDuration: Histogram;
  private readonly dispatches: Counter;
  private readonly poolSize: Histogram;
  private readonly score: Histogram;
  private readonly reuseHits: Counter;
  private readonly requeues: Counter<'reason'>;
  private readonly failures: Counter<'cause'>;
  private readonly workerStates = new Set<string>(['READY', 'DRAINING', 'DRAINED']);
  private readonly deriver: EventDeriver;
  private readonly detach: () => void;
  private readonly listeners: Array<() => void> = [];
  private readonly energy: EnergyMeter;

  constructor(
    store: ClusterStore,
    options: {
      processMetrics?: boolean;
      now?: () => number;
      /** Named queues (config `queues:`): `iris_queue_tasks` by `queue`; `fallback` counts jobs without one. */
      queues?: { names: readonly string[]; fallback: string } | null;
    } = {},
  ) {
    const registers = [this.registry];
    const energy = (this.energy = new EnergyMeter(store, options.now));
    const workerStates = this.workerStates;
    stateGauge('iris_jobs', 'Jobs the cluster holds (the latest run of each name), by state.', registers, () => ({
      states: JOB_STATES,
      each: Array.from(store.jobs(), (job) => job.state),
    }));
    stateGauge('iris_tasks', 'Tasks of the jobs the cluster holds, by state.', registers, () => ({
      states: TASK_STATES,
      each: Array.from(store.jobs()).flatMap((job) => Array.from(store.tasksOf(job.name), (task) => task.state)),
    }));
    const bandHelp = 'Tasks of live jobs by priority band (--priority) and state (PENDING, ASSIGNED, RUNNING).';
    bandGauge('iris_tasks_by_band', bandHelp, registers, () =>
      Array.from(store.jobs())
        .filter((job) => !isFinalJobState(job.state))
        .flatMap((job) =>
          Array.from(store.tasksOf(job.name), (task) => ({ band: bandOf(job.spec), state: task.state })),
        ),
    );
    stateGauge('iris_workers', 'Workers by state.', registers, () => {
      const workers = store.workers();
      for (const w of workers) workerStates.add(w.state);
      return { states: [...workerStates], each: workers.map((w) => w.state) };
    });
    const readyCostPerHour = () => enabledCostPerHour(store.workers());
    const costHelp = 'Sum of cost-per-hour of the enabled (READY) workers (config unit; default 1 per worker).';
    valueGauge('iris_workers_cost_per_hour', costHelp, registers, readyCostPerHour);
    const powerHelp = 'Watts the workers with power-watts draw now (disabled and drained workers draw nothing).';
    valueGauge('iris_workers_power_watts', powerHelp, registers, () => energy.watts());
    const energyHelp = 'Energy drawn by each worker with power-watts since the cluster started, in joules.';
    new Counter({
      name: 'iris_energy_joules_total',
      help: energyHelp,
      labelNames: ['worker'],
      registers,
      collect() {
        this.reset();
        for (const [worker, joules] of energy.totals()) this.inc({ worker }, joules);
      },
    });
    const clusterEnergyHelp =
      'Energy drawn by all workers with power-watts since the cluster started, in joules ' +
      '(disabled and drained workers draw nothing).';
    new Counter({
      name: 'iris_cluster_energy_joules_total',
      help: clusterEnergyHelp,
      registers,
      collect() {
        this.reset();
        let sum = 0;
        for (const joules of energy.totals().values()) sum += joules;
        this.inc(sum);
      },
    });
    const queueHelp = 'PENDING tasks in the scheduler queue (not those of jobs waiting on dependencies).';
    const queues = options.queues;
    if (!queues) valueGauge('iris_queue_tasks', queueHelp, registers, () => store.queuedTasks().size);
    else
      queueGauge('iris_queue_tasks', `${queueHelp} By named queue.`, registers, queues.names, () =>
        Array.from(store.queuedTasks(), (task) => store.job(task.job)?.spec.queue ?? queues.fallback),
      );
    const waitingHelp = 'Jobs waiting on their dependencies (--after) before they enter the queue.';
    if (!queues) valueGauge('iris_queue_waiting_jobs', waitingHelp, registers, () => store.waitingJobCount());
    else
      queueGauge('iris_queue_waiting_jobs', `${waitingHelp} By named queue.`, registers, queues.names, () =>
        Array.from(store.waitingJobs(), (job) => job.spec.queue ?? queues.fallback),
      );
    const histogram = (name: string, help: string, buckets: number[]) =>
      new Histogram({ name, help, buckets, registers });
    const counter = (name: string, help: string) => new Counter({ name, help, registers });
    const passHelp = 'Wall time of a scheduling pass (snapshot, schedule, apply).';
    this.passDuration = histogram('iris_scheduling_pass_duration_seconds', passHelp, PASS_BUCKETS);
    this.dispatches = counter('iris_dispatches_total', 'Attempts placed on a worker (each start or retry of a task).');
    const decided = '(dispatches that recorded a placement decision)';
    const poolHelp = `Feasible workers a dispatch chose among ${decided}.`;
    this.poolSize = histogram('iris_dispatch_pool_size', poolHelp, POOL_BUCKETS);
    this.score = histogram('iris_dispatch_score', `The chosen worker's placement score ${decided}.`, SCORE_BUCKETS);
    const reuseHelp = 'Dispatches to a worker with a fresh cache hint for every key the task uses.';
    this.reuseHits = counter('iris_dispatch_reuse_hits_total', reuseHelp);
    const requeueHelp = 'Requeue events by reason (docs/cli.md, "Requeue events").';
    this.requeues = labelledCounter('iris_task_requeues_total', requeueHelp, registers, 'reason', REQUEUE_REASONS);
    const failureHelp = 'Jobs that ended failed, by cause (docs/metrics.md).';
    this.failures = labelledCounter('iris_job_failures_total', failureHelp, registers, 'cause', FAILURE_CAUSES);
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'iris_' });

    this.deriver = new EventDeriver(store.jobs(), store.activeAttempts());
    const onChange = (event: Parameters<EventDeriver['observe']>[0]) => {
      this.count(this.deriver.observe(event));
      this.changed();
    };
    const onRequeue = ({ reason }: { reason: string }) => {
      this.requeues.inc({ reason });
      this.changed();
    };
    store.events.on('change', onChange);
    store.events.on('requeue', onRequeue);
    this.detach = () => {
      store.events.off('change', onChange);
      store.events.off('requeue', onRequeue);
    };
  }

  passed(seconds: number): void {
    this.passDuration.observe(seconds);
    this.changed();
  }

  /** Call `listener` after each change the metrics counted (a store event, a requeue, a pass). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /**
   * Every metric family with its samples as the exposition text has them: the sample names of a
   * histogram (`_bucket`, `_sum`, `_count`), label values as text, the values as numbers.
   */
  async families(): Promise<MetricFamily[]> {
    const read = await this.registry.getMetricsAsJSON();
    return read.map((metric) => ({
      name: metric.name,
      type: metric.type as unknown as MetricFamily['type'],
      help: metric.help,
      samples: metric.values.map((v) => ({
        name: (v as { metricName?: string }).metricName ?? metric.name,
        labels: Object.fromEntries(Object.entries(v.labels).map(([k, l]) => [k, labelText(l)])),
        value: v.value,
      })),
    }));
  }

  /** True while some worker draws power: energy grows with time alone. */
  drawingPower(): boolean {
    return this.energy.drawing();
  }

  /** Stop listening to the store (at shutdown). */
  close(): void {
    this.detach();
    this.energy.close();
    this.registry.clear();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private count(inc: Increments): void {
    if (inc.failure) this.failures.inc({ cause: inc.failure });
    if (inc.dispatch) {
      this.dispatches.inc();
      const decision = inc.dispatch.placement;
      if (decision) {
        this.poolSize.observe(decision.pool);
        this.score.observe(decision.score);
        if (decision.reuseHit) this.reuseHits.inc();
      }
    }
  }
}

/** A label value as the exposition text writes it (a histogram's `le` is a number there: 0.5, +Inf). */
function labelText(value: string | number | undefined): string {
  if (typeof value !== 'number') return String(value ?? '');
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function zeroes(states: readonly string[]): Map<string, number> {
  return new Map(states.map((s) => [s, 0]));
}

/**
 * A counter by one label, each of `values` present from the start with 0 (so a rate() over them
 * works before the first event).
 */
function labelledCounter<L extends string>(
  name: string,
  help: string,
  registers: Prom.Registry[],
  label: L,
  values: readonly string[],
): Counter<L> {
  const counter = new Counter<L>({ name, help, labelNames: [label], registers });
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
  return counter;
}

/** A gauge of one number, read when scraped. */
function valueGauge(name: string, help: string, registers: Prom.Registry[], read: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(read());
    },
  });
}

/** A gauge by named queue, read when scraped: every queue present (0 when empty). */
function queueGauge(
  name: string,
  help: string,
  registers: Prom.Registry[],
  names: readonly string[],
  read: () => Iterable<string>,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['queue'],
    registers,
    collect() {
      const counts = new Map<string, number>();
      for (const queue of read()) counts.set(queue, (counts.get(queue) ?? 0) + 1);
      for (const queue of names) this.set({ queue }, counts.get(queue) ?? 0);
    },
  });
}

/** The task states `iris_tasks_by_band` counts: those of work waiting for or holding a worker. */
const LIVE_TASK_STATES: readonly TaskState[] = ['PENDING', 'ASSIGNED', 'RUNNING'];

/**
 * A gauge of tasks by band and live state, read when scraped: every band and live state present
 * (0 when none), tasks in other states not counted.
 */
function bandGauge(
  name: string,
  help: string,
  registers: Prom.Registry[],
  read: () => Iterable<{ band: string; state: TaskState }>,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['band', 'state'],
    registers,
    collect() {
      const counts = new Map<string, number>();
      const key = (band: string, state: string) => `${band} ${state}`;
      for (const task of read()) {
        if (!LIVE_TASK_STATES.includes(task.state)) continue;
        const at = key(task.band, task.state);
        counts.set(at, (counts.get(at) ?? 0) + 1);
      }
      for (const band of BANDS)
        for (const state of LIVE_TASK_STATES) this.set({ band, state }, counts.get(key(band, state)) ?? 0);
    },
  });
}

/**
 * A gauge of how many things are in each state, read when scraped: `read()` gives the states always
 * shown (0 when none is in them) and the state of each thing counted.
 */
function stateGauge(
  name: string,
  help: string,
  registers: Prom.Registry[],
  read: () => { states: readonly string[]; each: readonly string[] },
): void {
  new Gauge({
    name,
    help,
    labelNames: ['state'],
    registers,
    collect() {
      const { states, each } = read();
      const counts = zeroes(states);
      for (const state of each) counts.set(state, (counts.get(state) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
}

/**
 * The shapes of the cluster's answers (the wire types of types.ts), checked by the client before
 * anything is rendered (client/socket-transport.ts): whatever answers at the address the CLI uses
 * (a stale socket path, an IRIS_CONTROLLER_ADDRESS a task was given) may be something else than
 * an iris cluster, and a wrong-shaped answer (`{}` to a submit) must be an error, not a printed
 * success. One shape per route; each names every field of its type (shape.ts `object`), and is
 * built on its first use (`lazy`): a CLI start pays only for the route it calls. Enumerations
 * are checked against their lists where the CLI already loads them (job and task states), as
 * strings elsewhere.
 */
import { BANDS } from '../model/band.js';
import type { DensitySeries, MetricsSeries, SeriesSample } from './metrics.js';
import type { TimelineAttempt, TimelineResponse } from './timeline.js';
import type { PipelineResponse, PipelineStageInfo } from './pipeline-request.js';
import type {
  AttemptInfo,
  CancelResponse,
  ClusterInfo,
  ClusterQueueInfo,
  DashboardResponse,
  EndpointInfo,
  EstimateResponse,
  NamedQueueInfo,
  ExecEvent,
  ExecSummary,
  HealthResponse,
  JobDetail,
  JobSummary,
  LogBatch,
  LogLine,
  PruneResponse,
  QueueEntry,
  QueueInfo,
  UsageInfo,
  UserShareInfo,
  RequeueSummary,
  ResultInfo,
  RunsIn,
  RuntimeEstimateInfo,
  ResultsResponse,
  RetryResponse,
  UpdateResponse,
  RunAttemptInfo,
  RunInfo,
  SubmitResponse,
  TaskDetail,
  TaskInfo,
  WaitResponse,
  WorkerInfo,
} from './types.js';
import type { ClusterEvent } from '../model/events.js';
import type { ConstraintOp } from '../model/constraints.js';
import type { WorkerDevice } from '../model/resources.js';
import type { AttemptState } from '../model/states.js';
import type { DependencyCondition, DisabledBy, WorkerState } from '../model/types.js';
import type { RequeueReason } from '../model/requeue.js';
import type { JobCategory } from '../model/workload.js';
import { JOB_STATES, TASK_STATES } from '../model/states.js';
import {
  anything,
  array,
  boolean,
  either,
  lazy,
  nullable,
  number,
  object,
  oneOf,
  optional,
  record,
  string,
  text,
  type Shape,
} from './shape.js';

const jobState = oneOf(JOB_STATES);
const band = oneOf(BANDS);
const taskState = oneOf(TASK_STATES);
const strings = array(string);
const nullableNumber = nullable(number);
const nullableString = nullable(string);
const attemptState = text<AttemptState>();

export const submitAnswer = lazy(() =>
  object<SubmitResponse>({
    name: string,
    run: number,
    tasks: number,
    parent: nullableString,
    generated: boolean,
    band: optional(band),
    queue: optional(string),
  }),
);

const runsIn = lazy(() =>
  object<RunsIn>({
    image: nullableString,
    cwd: nullableString,
    containerUser: nullableString,
    env: record(nullableString),
    mounts: array(object<RunsIn['mounts'][number]>({ source: string, target: string, readOnly: boolean })),
  }),
);

const runtimeEstimate = lazy(() =>
  object<RuntimeEstimateInfo>({ durationMs: nullableNumber, source: oneOf(['predicted', 'limit']), runs: number }),
);

export const estimateAnswer = lazy(() =>
  object<EstimateResponse>({
    name: string,
    tasks: number,
    start: nullableNumber,
    now: number,
    reason: string,
    policy: string,
    supersedes: optional(object<NonNullable<EstimateResponse['supersedes']>>({ run: number, state: jobState })),
    waitsFor: optional(string),
    runsIn: optional(runsIn),
    runtime: optional(runtimeEstimate),
  }),
);

const pipelineStage = lazy(() =>
  object<PipelineStageInfo>({
    stage: string,
    job: string,
    needs: strings,
    tasks: number,
    cpuMillis: number,
    memoryBytes: number,
    device: nullableString,
    category: nullableString,
    run: nullableNumber,
  }),
);
export const pipelineAnswer = lazy(() =>
  object<PipelineResponse>({ name: string, run: nullableNumber, dryRun: boolean, stages: array(pipelineStage) }),
);

const queueEntry = lazy(() =>
  object<QueueEntry>({
    position: number,
    job: string,
    user: string,
    band: optional(band),
    queue: optional(string),
    depth: number,
    pendingTasks: number,
    submittedAt: number,
    timeLimitMs: nullableNumber,
    estimate: optional(runtimeEstimate),
    reason: nullableString,
    reservedStart: nullableNumber,
  }),
);
const usageInfo = lazy(() => object<UsageInfo>({ cpu: number, memoryBytes: number, accelerators: number }));
const userShare = lazy(() =>
  object<UserShareInfo>({
    user: string,
    running: usageInfo,
    quota: nullable(
      object<NonNullable<UserShareInfo['quota']>>({
        cpu: nullableNumber,
        memoryBytes: nullableNumber,
        accelerators: nullableNumber,
        weight: number,
        hard: boolean,
      }),
    ),
    share: number,
    borrowed: usageInfo,
    borrowedTasks: number,
  }),
);
const namedQueue = lazy(() =>
  object<NamedQueueInfo>({
    name: string,
    policy: string,
    queueDepth: number,
    reservationDepth: number,
    workers: string,
    default: boolean,
  }),
);
export const queueAnswer = lazy(() =>
  object<QueueInfo>({
    policy: string,
    queueDepth: number,
    reservationDepth: number,
    jobs: array(queueEntry),
    users: optional(array(userShare)),
    queues: optional(array(namedQueue)),
  }),
);

const summaryFields = {
  name: string,
  run: number,
  archived: boolean,
  user: string,
  submitter: optional(string),
  band: optional(band),
  queue: optional(string),
  state: jobState,
  reason: nullableString,
  depth: number,
  parent: nullableString,
  replicas: number,
  tasks: object<JobSummary['tasks']>({ total: number, byState: record(number) }),
  submittedAt: number,
  startedAt: nullableNumber,
  finishedAt: nullableNumber,
  liveDescendants: optional(number),
} as const;
const jobSummary = lazy(() => object<JobSummary>(summaryFields));
export const jobsAnswer = lazy(() => array(jobSummary));

const attempt = lazy(() =>
  object<AttemptInfo>({
    attempt: number,
    workerId: string,
    state: attemptState,
    exitCode: nullableNumber,
    reason: nullableString,
    startedAt: number,
    finishedAt: nullableNumber,
    logCutBytes: nullableNumber,
    cpuSeconds: nullableNumber,
    peakMemoryBytes: nullableNumber,
    stopping: optional(oneOf([true])),
    placement: optional(
      nullable(
        object<NonNullable<AttemptInfo['placement']>>({
          mode: string,
          pool: number,
          lambda: number,
          score: number,
          reuseHit: boolean,
          runnerUp: nullable(object<{ workerId: string; score: number }>({ workerId: string, score: number })),
        }),
      ),
    ),
    merged: optional(object<{ lead: string; tasks: string[] }>({ lead: string, tasks: strings })),
  }),
);

const taskFields = {
  id: string,
  index: number,
  state: taskState,
  attempt: number,
  workerId: nullableString,
  exitCode: nullableNumber,
  reason: nullableString,
  failures: number,
  preemptions: number,
  startedAt: nullableNumber,
  finishedAt: nullableNumber,
  eligibleAt: optional(nullableNumber),
  borrowed: optional(string),
  attempts: array(attempt),
} as const;

const requeues = lazy(() =>
  object<RequeueSummary>({
    total: number,
    byReason: record(number),
    recent: array(
      object<RequeueSummary['recent'][number]>({
        time: number,
        reason: text<RequeueReason>(),
        task: nullableString,
        attempt: nullableNumber,
        detail: nullableString,
      }),
    ),
  }),
);

const execBy = lazy(() =>
  either(
    object<{ kind: 'owner'; user: string }>({ kind: oneOf(['owner']), user: string }),
    object<{ kind: 'task'; task: string }>({ kind: oneOf(['task']), task: string }),
  ),
);
const execs = lazy(() =>
  object<ExecSummary>({
    total: number,
    recent: array(
      object<ExecEvent>({ time: number, task: string, attempt: number, by: execBy, command: strings, tty: boolean }),
    ),
  }),
);

export const jobAnswer = lazy(() =>
  object<JobDetail>({
    ...summaryFields,
    command: strings,
    constraints: array(
      object<JobDetail['constraints'][number]>({ key: string, op: text<ConstraintOp>(), values: strings }),
    ),
    coschedule: nullableString,
    maxRetries: number,
    maxTaskFailures: number,
    maxPreemptions: number,
    timeoutMs: nullableNumber,
    schedulingTimeoutMs: nullableNumber,
    after: optional(
      array(object<NonNullable<JobDetail['after']>[number]>({ job: string, condition: text<DependencyCondition>() })),
    ),
    cause: optional(object<NonNullable<JobDetail['cause']>>({ kind: oneOf(['dependency_failure']), parent: string })),
    retryBackoffMs: optional(nullableNumber),
    retryBackoffMaxMs: optional(nullableNumber),
    resources: object<JobDetail['resources']>({
      cpu: number,
      memoryBytes: number,
      device: string,
      gpuMemoryBytes: optional(number),
    }),
    taskList: array(object<TaskInfo>(taskFields)),
    children: array(jobSummary),
    stage: optional(
      object<NonNullable<JobDetail['stage']>>({ name: string, needs: strings, stickTo: optional(string) }),
    ),
    category: optional(text<JobCategory>()),
    uses: optional(strings),
    mergeKey: optional(string),
    stages: optional(
      array(
        object<NonNullable<JobDetail['stages']>[number]>({
          stage: string,
          job: string,
          needs: strings,
          state: nullable(jobState),
          reason: nullableString,
        }),
      ),
    ),
    results: optional(number),
    requeues: optional(requeues),
    runsIn: optional(runsIn),
    execs: optional(execs),
  }),
);

const runAttempt = lazy(() =>
  object<RunAttemptInfo>({
    task: string,
    attempt: number,
    workerId: string,
    state: attemptState,
    exitCode: nullableNumber,
    reason: nullableString,
    startedAt: number,
    finishedAt: nullableNumber,
    cpuSeconds: nullableNumber,
    peakMemoryBytes: nullableNumber,
    energyJoules: optional(number),
  }),
);
export const historyAnswer = lazy(() =>
  array(
    object<RunInfo>({
      run: number,
      name: string,
      user: string,
      submitter: optional(string),
      band: optional(band),
      queue: optional(string),
      state: jobState,
      reason: nullableString,
      archived: boolean,
      submittedAt: number,
      startedAt: nullableNumber,
      finishedAt: nullableNumber,
      exitCode: nullableNumber,
      cpuSeconds: nullableNumber,
      peakMemoryBytes: nullableNumber,
      energyJoules: optional(nullableNumber),
      attempts: array(runAttempt),
    }),
  ),
);

export const taskAnswer = lazy(() => object<TaskDetail>({ ...taskFields, job: string, jobState, replicas: number }));

export const retryAnswer = lazy(() =>
  object<RetryResponse>({ retried: array(object<RetryResponse['retried'][number]>({ name: string, run: number })) }),
);

export const updateAnswer = lazy(() =>
  object<UpdateResponse>({ name: string, previous: band, band, changed: strings }),
);

export const cancelAnswer = lazy(() =>
  object<CancelResponse>({
    cancelled: strings,
    alreadyEnded: array(
      object<CancelResponse['alreadyEnded'][number]>({ name: string, state: oneOf([...JOB_STATES, ...TASK_STATES]) }),
    ),
    below: optional(
      array(
        object<NonNullable<CancelResponse['below']>[number]>({ name: string, state: jobState, cancelled: strings }),
      ),
    ),
  }),
);

const usage = lazy(() => object<WorkerInfo['capacity']>({ cpuMillis: number, memoryBytes: number, devices: number }));
export const workerAnswer = lazy(() =>
  object<WorkerInfo>({
    id: string,
    state: text<WorkerState>(),
    device: object<WorkerDevice>({
      type: text<WorkerDevice['type']>(),
      variant: nullableString,
      count: number,
      memoryBytes: optional(nullableNumber),
    }),
    attributes: record(string),
    capacity: usage,
    used: usage,
    cpuReleasedMillis: number,
    cpuOversubscribedMillis: number,
    runningTasks: strings,
    left: optional(text<NonNullable<WorkerInfo['left']>>()),
    hostname: optional(string),
    devicePaths: optional(strings),
    privileged: optional(boolean),
    costPerHour: number,
    powerWatts: optional(object<NonNullable<WorkerInfo['powerWatts']>>({ idle: number, busy: number })),
    drawWatts: optional(number),
    cache: array(object<WorkerInfo['cache'][number]>({ key: string, expiresAt: number, loading: boolean })),
    disabled: optional(
      nullable(
        object<NonNullable<WorkerInfo['disabled']>>({ by: text<DisabledBy>(), reason: string, disabledAt: number }),
      ),
    ),
  }),
);
export const workersAnswer = lazy(() => array(workerAnswer));

export const clusterAnswer = lazy(() =>
  object<ClusterInfo>({
    clusterId: string,
    pid: number,
    socket: string,
    taskDoor: optional(object<NonNullable<ClusterInfo['taskDoor']>>({ listen: string, advertise: string })),
    home: string,
    config: object<ClusterInfo['config']>({ path: nullable(string) }),
    metrics: object<ClusterInfo['metrics']>({ url: nullable(string) }),
    version: string,
    startedAt: number,
    workers: workersAnswer,
    cpu: object<ClusterInfo['cpu']>({
      capacityMillis: number,
      usedMillis: number,
      releasedMillis: number,
      oversubscribedMillis: number,
    }),
    cost: optional(object<NonNullable<ClusterInfo['cost']>>({ perHour: number, excluded: number })),
    queue: object<ClusterInfo['queue']>({
      pending: number,
      running: number,
      jobs: record(number),
      policy: string,
      passes: number,
    }),
    queues: optional(
      array(
        object<ClusterQueueInfo>({
          name: string,
          policy: string,
          workers: string,
          workerCount: number,
          pending: number,
          running: number,
          default: boolean,
        }),
      ),
    ),
  }),
);

export const dashboardAnswer = lazy(() =>
  object<DashboardResponse>({
    url: string,
    loginUrl: string,
    listen: object<DashboardResponse['listen']>({ host: string, port: number }),
    warning: optional(string),
  }),
);

/** POST /v1/cluster/stop answers `{ stopped: true }`; nothing of it is used. */
export const stopAnswer: Shape = anything;

export const waitAnswer = lazy(() => object<WaitResponse>({ done: boolean, jobs: array(jobAnswer) }));

export const pruneAnswer = lazy(() =>
  object<PruneResponse>({
    cutoff: number,
    dryRun: boolean,
    runs: array(
      object<PruneResponse['runs'][number]>({ name: string, run: number, state: jobState, finishedAt: nullableNumber }),
    ),
    logBytes: number,
    logErrors: strings,
  }),
);

export const endpointAnswer = lazy(() =>
  object<EndpointInfo>({
    name: string,
    address: string,
    task: string,
    attempt: number,
    job: string,
    registeredAt: number,
  }),
);
export const endpointsAnswer = lazy(() => array(endpointAnswer));

export const resultsAnswer = lazy(() =>
  object<ResultsResponse>({
    job: string,
    run: number,
    results: array(
      object<ResultInfo>({ task: string, index: number, key: string, value: string, attempt: number, setAt: number }),
    ),
  }),
);

const stream = oneOf(['stdout', 'stderr']);
/** One item of GET /v1/logs: a batch, or a single line as older clusters sent. */
export const logItem = lazy(() =>
  either(
    object<LogBatch>({ task: string, attempt: number, stream, times: array(number), text: string }),
    object<LogLine>({ time: number, task: string, attempt: number, stream, text: string }),
  ),
);

export const eventItem = lazy(() =>
  object<ClusterEvent>({
    type: oneOf(['job', 'task', 'worker', 'endpoint', 'cluster']),
    name: string,
    state: optional(string),
    previous: optional(string),
    reason: optional(string),
    attempt: optional(number),
    time: number,
  }),
);

export const densityAnswer = lazy(() =>
  object<DensitySeries>({
    version: oneOf([1]),
    bucketSeconds: number,
    updatedAt: number,
    buckets: array(
      object<DensitySeries['buckets'][number]>({ start: number, submissions: number, activeWorkers: number }),
    ),
  }),
);

const usedOfTotal = object<{ used: number; total: number }>({ used: number, total: number });

export const seriesAnswer = lazy(() =>
  object<MetricsSeries>({
    intervalMs: number,
    samples: array(
      object<SeriesSample>({
        time: number,
        pendingJobs: number,
        runningTasks: number,
        cpu: usedOfTotal,
        memoryBytes: usedOfTotal,
        accelerators: usedOfTotal,
      }),
    ),
  }),
);

export const timelineAnswer = lazy(() =>
  object<TimelineResponse>({
    from: number,
    to: number,
    attempts: array(
      object<TimelineAttempt>({
        task: string,
        job: string,
        attempt: number,
        worker: string,
        start: number,
        end: nullableNumber,
        state: string,
      }),
    ),
    truncated: optional(oneOf([true])),
  }),
);

export const healthAnswer = lazy(() => object<HealthResponse>({ ok: oneOf([true]), version: string, pid: number }));

// A step loop that drives the real QueueScheduler through job trees whose running parents wait
// for their children, as `iris run` inside a task does (docs/architecture.md, "Scheduling order";
// the issue "Job trees that can never deadlock", §2 and §5):
//  (a) one pass on a snapshot built the way the controller builds it: a running task whose
//      children are not all finished is waiting, and with `release` its CPU is neither counted
//      in its worker's used CPU nor among the running allocations the policies plan with
//      (memory and devices would stay held; these jobs ask for none);
//  (b) finish the deepest running tasks whose children have all finished.
// A started job submits all its children at once (they are pending from the next pass on).
// A task that stops waiting takes its CPU back, so a worker may be oversubscribed until it ends.
import type { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  RunningAllocation,
  SchedulerJob,
  SchedulerTask,
  Snapshot,
  WorkerView,
} from '../../../../src/cluster/scheduler/types.js';

/** One job of a tree: its CPU request (millis), time limit (steps) and children. */
export interface TreeNode {
  cpuMillis: number;
  limit: number;
  children: TreeNode[];
}

export interface TreeRun {
  /** Every job ended. */
  drained: boolean;
  /** Steps taken (a step is one pass and one round of finishing). */
  steps: number;
  /** Jobs that never ended (names). */
  left: string[];
}

interface Job {
  name: string;
  node: TreeNode;
  depth: number;
  parent: Job | null;
  rootAt: number;
  /** Position in the trees (depth-first), the job's submission sequence. */
  seq: number;
  state: 'unsubmitted' | 'pending' | 'running' | 'done';
  workerId: string | null;
  startedAt: number;
  children: Job[];
}

function expand(node: TreeNode, name: string, parent: Job | null, rootAt: number): Job {
  const job: Job = {
    name,
    node,
    depth: parent ? parent.depth + 1 : 1,
    parent,
    rootAt,
    seq: 0,
    state: 'unsubmitted',
    workerId: null,
    startedAt: 0,
    children: [],
  };
  job.children = node.children.map((child, i) => expand(child, `${name}/c${i}`, job, rootAt));
  return job;
}

const childrenDone = (job: Job): boolean => job.children.every((c) => c.state === 'done');

/** Runs `roots` (all submitted at step 0) on `workers` until every job ended or `maxSteps` passed. */
export function runTrees(
  scheduler: QueueScheduler,
  workers: readonly WorkerView[],
  roots: readonly TreeNode[],
  options: { release: boolean; maxSteps: number },
): TreeRun {
  const all: Job[] = [];
  const collect = (job: Job): void => {
    job.seq = all.length;
    all.push(job);
    job.children.forEach(collect);
  };
  roots.map((root, i) => expand(root, `/t${i}`, null, i)).forEach(collect);
  let seq = 0;
  const taskOf = new Map<string, SchedulerTask>();
  const submit = (job: Job, now: number): void => {
    job.state = 'pending';
    taskOf.set(job.name, { id: `${job.name}/task-0`, job: job.name, index: 0, submittedAt: now, seq: seq++ });
  };
  for (const job of all) if (job.parent === null) submit(job, 0);

  let changed = true;
  let previouslyReleased = new Set<string>();
  for (let step = 0; step < options.maxSteps; step++) {
    const now = step;
    if (all.every((j) => j.state === 'done')) return { drained: true, steps: step, left: [] };
    const running = all.filter((j) => j.state === 'running');
    const released = new Set(options.release ? running.filter((j) => !childrenDone(j)).map((j) => j.name) : []);
    if (released.size !== previouslyReleased.size || [...released].some((n) => !previouslyReleased.has(n)))
      changed = true;
    previouslyReleased = released;

    const holding = running.filter((j) => !released.has(j.name));
    const allocations: RunningAllocation[] = holding.map((j) => ({
      task: `${j.name}/task-0`,
      job: j.name,
      workerId: j.workerId!,
      cpuMillis: j.node.cpuMillis,
      memoryBytes: 0,
      devices: 0,
      endsAt: Math.max(now, j.startedAt + j.node.limit),
    }));
    const views = workers.map((w) => {
      const used = allocations.filter((a) => a.workerId === w.id).reduce((n, a) => n + a.cpuMillis, 0);
      return { ...w, free: { ...w.free, cpuMillis: w.capacity.cpuMillis - used } };
    });
    const pending = all.filter((j) => j.state === 'pending');
    const jobs = new Map<string, SchedulerJob>(pending.map((j) => [j.name, schedulerJob(j)]));
    const snapshot: Snapshot = {
      now,
      jobs,
      pending: pending.map((j) => taskOf.get(j.name)!),
      workers: views,
      usage: new Map(),
      quotas: new Map(),
      running: allocations,
    };
    const plan = scheduler.pass(snapshot, changed);
    changed = false;

    for (const p of plan.placements) {
      const job = all.find((j) => j.name === p.job)!;
      const view = views.find((w) => w.id === p.workerId)!;
      if (job.state !== 'pending') throw new Error(`${p.task} placed but not pending`);
      if (view.free.cpuMillis < job.node.cpuMillis) throw new Error(`${p.task} overcommits ${p.workerId}`);
      view.free = { ...view.free, cpuMillis: view.free.cpuMillis - job.node.cpuMillis };
      job.state = 'running';
      job.workerId = p.workerId;
      job.startedAt = now;
    }
    // Started parents submit their children (their tasks call `iris run`).
    for (const p of plan.placements)
      for (const child of all.find((j) => j.name === p.job)!.children) submit(child, now);

    const finishable = all.filter(
      (j) => j.state === 'running' && childrenDone(j) && !plan.placements.some((p) => p.job === j.name),
    );
    const deepest = Math.max(...finishable.map((j) => j.depth));
    for (const job of finishable) {
      if (job.depth !== deepest) continue;
      job.state = 'done';
      changed = true;
    }
  }
  const left = all.filter((j) => j.state !== 'done').map((j) => j.name);
  return { drained: left.length === 0, steps: options.maxSteps, left };
}

function schedulerJob(job: Job): SchedulerJob {
  return {
    name: job.name,
    depth: job.depth,
    rootSubmittedAt: job.rootAt,
    seq: job.seq,
    user: 'alice',
    resources: { cpuMillis: job.node.cpuMillis, memoryBytes: 0, device: null },
    constraints: [],
    coschedule: null,
    replicas: 1,
    timeLimitMs: job.node.limit,
  };
}

/** Number of jobs in the trees. */
export function treeSize(roots: readonly TreeNode[]): number {
  return roots.reduce((n, r) => n + 1 + treeSize(r.children), 0);
}

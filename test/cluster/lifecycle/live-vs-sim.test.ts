// The live store and the simulator share one lifecycle (src/cluster/lifecycle): for random jobs
// (trees, dependencies, gangs, budgets, keys they use) and random events (placements, starts,
// exits, failures, preemptions, cancels, drains, disabled workers, quarantines), the store (in
// memory) and the simulator's state (src/sim/state.ts), each applying the lifecycle's decisions
// its own way, reach the same job and task states, the same live attempts and the same hints.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assign, attemptEnded, markRunning, preemptAttempt } from '../../../src/cluster/lifecycle/attempts.js';
import type { Item } from '../../../src/cluster/lifecycle/changes.js';
import { dependenciesStatus, waitingForReason } from '../../../src/cluster/lifecycle/dependencies.js';
import {
  cancelJob,
  cancelTask,
  markUnschedulable,
  quarantine,
  waitsOnDependencies,
} from '../../../src/cluster/lifecycle/jobs.js';
import { disableWorker, drainWorker, enableWorker, resumeWorker } from '../../../src/cluster/lifecycle/workers.js';
import { quarantineReason } from '../../../src/cluster/state/load-check.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { plainTask } from '../../../src/cluster/state/task-record.js';
import { isFinalJobState, type AttemptOutcome } from '../../../src/model/states.js';
import type { DependencyCondition, Job, JobSpec, Task, WorkerSpec } from '../../../src/model/types.js';
import { DEFAULT_CACHE_TTL_MS } from '../../../src/model/workload.js';
import { SimState } from '../../../src/sim/state.js';
import { spec } from '../state/helpers.js';

const WORKERS = 3;
const TTL = DEFAULT_CACHE_TTL_MS;

const workerSpec = (id: string): WorkerSpec => ({
  id,
  cpuMillis: 64_000,
  memoryBytes: 8 << 30,
  device: { type: 'cpu', variant: null, count: 0 },
  attributes: {},
});

interface JobPlan {
  parent: number | null;
  after: Array<{ on: number; condition: DependencyCondition }>;
  replicas: number;
  retries: number;
  preemptions: number;
  failures: number;
  gang: boolean;
  uses: boolean;
  backoff: boolean;
  submittedBy: boolean;
}

const jobPlan: fc.Arbitrary<JobPlan> = fc.record({
  parent: fc.option(fc.nat(), { nil: null }),
  after: fc.array(
    fc.record({ on: fc.nat(), condition: fc.constantFrom<DependencyCondition>('ok', 'ok', 'any', 'failed') }),
    { maxLength: 3 },
  ),
  replicas: fc.integer({ min: 1, max: 3 }),
  retries: fc.integer({ min: 0, max: 2 }),
  preemptions: fc.integer({ min: 0, max: 2 }),
  failures: fc.integer({ min: 0, max: 1 }),
  gang: fc.boolean(),
  uses: fc.boolean(),
  backoff: fc.boolean(),
  submittedBy: fc.boolean(),
});

const KINDS = [
  'submit',
  'submit',
  'assign',
  'start',
  'succeed',
  'succeed',
  'fail',
  'fail',
  'preempt',
  'preemptAttempt',
  'killed',
  'timeout',
  'launchFailed',
  'lateExit',
  'cancel',
  'cancelTask',
  'unschedulable',
  'drain',
  'resume',
  'disable',
  'enable',
  'quarantine',
  'tick',
] as const;
interface Op {
  kind: (typeof KINDS)[number];
  job: number;
  task: number;
}
const op: fc.Arbitrary<Op> = fc.record({ kind: fc.constantFrom(...KINDS), job: fc.nat(), task: fc.nat(2) });

/** Job specs from plans: a tree of up to 4 levels, dependencies on the 3 jobs before, in submit order. */
function specsOf(plans: readonly JobPlan[]): JobSpec[] {
  const names: string[] = [];
  return plans.map((plan, i) => {
    const previous = i === 0 ? null : names[i - 1]!.slice(0, names[i - 1]!.lastIndexOf('/')) || null;
    let parent = plan.parent === null || i === 0 ? null : plan.parent % 2 === 0 ? previous : names[plan.parent % i]!;
    if (parent !== null && parent.split('/').length > 4) parent = null;
    const name = `${parent ?? ''}/j${i}`;
    names.push(name);
    const deps = new Map(plan.after.map((d) => [names[i - 1 - (d.on % Math.min(i, 3))]!, d.condition]));
    const after = i === 0 ? [] : [...deps].map(([job, condition]) => ({ job, condition }));
    return spec(name, {
      replicas: plan.replicas,
      maxRetries: plan.retries,
      maxPreemptions: plan.preemptions,
      maxTaskFailures: plan.failures,
      after,
      ...(plan.gang ? { coschedule: 'pool' } : {}),
      ...(plan.uses ? { uses: ['m1', `m${i % 3}`] } : {}),
      ...(plan.backoff ? { retryBackoffMs: 10 } : {}),
      ...(plan.submittedBy && parent !== null ? { submittedBy: { task: `${parent}/task-0`, attempt: 0 } } : {}),
    });
  });
}

const copyJob = (job: Job): Job => structuredClone(job);
const copyTasks = (tasks: readonly Task[]): Task[] => tasks.map((t) => plainTask(t));

/**
 * What both sides must agree on: every job's and task's state, what a waiting job waits for, the
 * tasks in the queue, the live attempts (in the order they became live), the hints in force.
 */
function statesOf(
  names: readonly string[],
  job: (name: string) => Job,
  tasks: (name: string) => readonly Task[],
  waits: (name: string) => string | null,
  queued: readonly string[],
  live: readonly { task: string; attempt: number; workerId: string }[],
  hints: Map<string, Map<string, unknown>>,
): unknown {
  return {
    jobs: names.map((name) => {
      const j = job(name);
      return {
        name,
        state: j.state,
        reason: j.reason,
        failedTasks: j.failedTasks,
        startedAt: j.startedAt,
        finishedAt: j.finishedAt,
        cause: j.cause ?? null,
        waits: waits(name),
        tasks: tasks(name).map((t) => ({
          id: t.id,
          state: t.state,
          attempt: t.attempt,
          failures: t.failures,
          preemptions: t.preemptions,
          reason: t.reason,
          workerId: t.workerId,
          exitCode: t.exitCode,
          eligibleAt: t.eligibleAt,
          startedAt: t.startedAt,
          finishedAt: t.finishedAt,
        })),
      };
    }),
    queued: [...queued].sort(),
    live: live.map((a) => ({ task: a.task, attempt: a.attempt, workerId: a.workerId })),
    hints,
  };
}

/** What a job of the simulator's state waits for (as the store's dependencyWait reports it), or null. */
function simWaits(sim: SimState, name: string): string | null {
  const entry = sim.job(name)!;
  if (!entry.waiting) return null;
  const status = dependenciesStatus(entry.job.spec.after, (n) => sim.job(n)?.job.state);
  return status.kind === 'waiting' ? waitingForReason(status.on, status.state) : null;
}

/** Live jobs seen under an ancestor that SUCCEEDED (the property must draw some). */
let underSucceeded = 0;

/**
 * Parents and children (lifecycle/jobs.ts): a job still live has no ancestor that ended otherwise
 * than SUCCEEDED (failed, killed, preempted for good: the subtree was killed); under a SUCCEEDED one
 * it may run on.
 */
function checkTrees(names: readonly string[], job: (name: string) => Job | undefined, when: string): void {
  for (const name of names) {
    const j = job(name)!;
    if (isFinalJobState(j.state)) continue;
    for (
      let up = j.parent === null ? undefined : job(j.parent);
      up;
      up = up.parent === null ? undefined : job(up.parent)
    ) {
      if (!isFinalJobState(up.state)) continue;
      expect(up.state, `${name} is ${j.state} under ${up.name} ${when}`).toBe('SUCCEEDED');
      underSucceeded++;
    }
  }
}

/** Plays `ops` on a store and on a SimState: each op gives the same outcome on both, and the same states after it. */
function play(specs: readonly JobSpec[], ops: readonly Op[]): void {
  let t = 1000;
  const store = ClusterStore.open({ path: ':memory:', now: () => t, cacheTtlMs: TTL });
  store.syncWorkers(Array.from({ length: WORKERS }, (_, i) => workerSpec(`w${i}`)));
  const sim = new SimState(
    store.workers().map((w) => structuredClone(w)),
    TTL,
  );
  const run = (decide: () => readonly Item[]): void => sim.run(decide(), t);
  /** The store's method and the lifecycle's decision it takes, applied to the simulator's state. */
  const decide = (live: () => unknown, decision: () => readonly Item[]): void => both(live, () => run(decision));
  const submitted: string[] = [];
  let next = 0;

  /** The next job of the plan, submitted to both (the store's records copied to the simulator's state). */
  const submit = (): string => {
    const s = specs[next++];
    if (!s) return 'none left';
    try {
      store.submit(s);
    } catch (error) {
      const message = (error as Error).message;
      // The lifecycle's refusal (a dependency that can never be met) is the simulator's too.
      if (/can never start/.test(message)) {
        expect(() => waitsOnDependencies(sim, { name: s.name, spec: s })).toThrow(message);
      }
      return `refused: ${message}`;
    }
    const job = copyJob(store.job(s.name)!);
    sim.add(job, copyTasks(store.tasksOf(s.name)), waitsOnDependencies(sim, job));
    submitted.push(s.name);
    return 'submitted';
  };

  /** Runs `live` (the store) and `simulated` (the same on the simulator's state): both throw the same, or neither. */
  const both = (live: () => unknown, simulated: () => void): void => {
    let a: string;
    let b: string;
    try {
      live();
      a = 'ok';
    } catch (error) {
      a = (error as Error).message;
    }
    try {
      simulated();
      b = 'ok';
    } catch (error) {
      b = (error as Error).message;
    }
    expect(b).toBe(a);
  };

  submit();
  submit();
  for (const o of ops) {
    t += 3;
    if (o.kind === 'submit') {
      submit();
      continue;
    }
    if (o.kind === 'tick') {
      t += TTL / 2;
      continue;
    }
    const names = [...submitted].sort();
    if (names.length === 0) continue;
    const job = names[o.job % names.length]!;
    const tasks = store.tasksOf(job);
    const id = tasks[o.task % tasks.length]!.id;
    const worker = `w${(o.job + o.task) % WORKERS}`;
    const live = () => store.activeAttempts().find((a) => a.task === id);
    const queued = () => [...store.queuedTasks()].some((x) => x.id === id);
    const place = (): void => {
      both(
        () => store.assign(id, worker, '/logs'),
        () => {
          const { items } = assign(sim, id, worker, '/logs', [], null, t);
          sim.run(items, t);
        },
      );
    };
    const finish = (n: number, outcome: AttemptOutcome): void =>
      decide(
        () => store.finishAttempt(id, n, outcome),
        () => attemptEnded(sim, id, n, outcome, t),
      );
    const ensureLive = () => {
      if (!live() && queued()) {
        place();
        const a = live();
        if (a)
          decide(
            () => store.markRunning(id, a.attempt, 100),
            () => markRunning(sim, id, a.attempt, 100, t),
          );
      }
      return live();
    };
    const end = (outcome: AttemptOutcome): void => {
      const a = ensureLive();
      if (a) finish(a.attempt, outcome);
    };
    switch (o.kind) {
      case 'assign':
        if (queued()) place();
        break;
      case 'start': {
        const a = ensureLive();
        if (a)
          decide(
            () => store.markRunning(id, a.attempt, 7),
            () => markRunning(sim, id, a.attempt, 7, t),
          );
        break;
      }
      case 'succeed':
        end({ kind: 'exited', exitCode: 0 });
        break;
      case 'fail':
        end({ kind: 'exited', exitCode: 3 });
        break;
      case 'preempt':
        end({ kind: 'preempted', reason: 'lost' });
        break;
      case 'killed':
        end({ kind: 'killed', reason: 'k' });
        break;
      case 'timeout':
        end({ kind: 'timeout' });
        break;
      case 'launchFailed': {
        if (queued()) place();
        const a = live();
        const outcome: AttemptOutcome = { kind: 'launch_failed', reason: 'no image' };
        if (a) finish(a.attempt, outcome);
        break;
      }
      case 'lateExit': {
        const list = store.attemptsOf(id);
        const a = list[list.length - 1];
        const outcome: AttemptOutcome = { kind: 'exited', exitCode: 9 };
        if (a) finish(a.attempt, outcome);
        break;
      }
      case 'preemptAttempt': {
        const a = ensureLive();
        const why = 'worker lost';
        if (a)
          decide(
            () => store.preemptAttempt(id, a.attempt, why),
            () => preemptAttempt(sim, id, a.attempt, why, t),
          );
        break;
      }
      case 'cancel':
        decide(
          () => store.cancel(job, 'cancelled'),
          () => cancelJob(sim, job, 'cancelled'),
        );
        break;
      case 'cancelTask':
        decide(
          () => store.cancelTask(id, 'one off'),
          () => cancelTask(sim, id, 'one off'),
        );
        break;
      case 'unschedulable':
        decide(
          () => store.markUnschedulable(job, 'never fits'),
          () => markUnschedulable(sim, job, 'never fits'),
        );
        break;
      case 'drain':
        decide(
          () => store.drainWorker(worker),
          () => drainWorker(sim, worker),
        );
        break;
      case 'resume':
        decide(
          () => store.resumeWorker(worker),
          () => resumeWorker(sim, worker),
        );
        break;
      case 'disable': {
        const by = o.task === 0 ? 'user' : 'elastic';
        decide(
          () => store.disableWorker(worker, by, 'idle'),
          () => disableWorker(sim, worker, by, 'idle', t),
        );
        break;
      }
      case 'enable':
        decide(
          () => store.enableWorker(worker),
          () => enableWorker(sim, worker),
        );
        break;
      case 'quarantine': {
        const why = quarantineReason('bad row');
        decide(
          () => store.quarantine(job, 'bad row'),
          () => quarantine(sim, job, why),
        );
        break;
      }
    }
    const names2 = [...submitted].sort();
    const liveStore = statesOf(
      names2,
      (n) => store.job(n)!,
      (n) => store.tasksOf(n),
      (n) => store.dependencyWait(n),
      [...store.queuedTasks()].map((x) => x.id),
      store.activeAttempts(),
      store.cacheHints(t),
    );
    const simQueued = names2.flatMap((n) => {
      const entry = sim.job(n)!;
      return entry.waiting ? [] : entry.tasks.filter((x) => x.state === 'PENDING').map((x) => x.id);
    });
    const liveSim = statesOf(
      names2,
      (n) => sim.job(n)!.job,
      (n) => sim.job(n)!.tasks,
      (n) => simWaits(sim, n),
      simQueued,
      [...sim.liveAttempts()],
      sim.hintsAt(t),
    );
    expect(liveSim, `after ${o.kind} ${job} ${id}`).toEqual(liveStore);
    checkTrees(names2, (n) => store.job(n), `after ${o.kind} ${job} ${id}`);
  }
  store.close();
}

describe('the live store and the simulator reach the same states (one lifecycle)', () => {
  it('for random jobs and events', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(
        fc.array(jobPlan, { minLength: 2, maxLength: 10 }),
        fc.array(op, { minLength: 10, maxLength: 60 }),
        (plans, ops) => play(specsOf(plans), ops),
      ),
      { numRuns: 150 },
    );
    expect(underSucceeded).toBeGreaterThan(0);
  });
});

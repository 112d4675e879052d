/**
 * The job-end cascade is a loop (lifecycle/cascade.ts) that keeps the order of the recursion it replaced:
 * on random small trees with random `after` dependencies (and pipeline stages with result
 * references), the same operations give the same states, the same stop orders, the same change
 * events and the same history, in the same order, as the old recursive walk (copied below as the
 * reference, installed on a second store).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dependenciesStatus, dependencyFailureReason } from '../../../src/cluster/lifecycle/dependencies.js';
import type { StoreEvent } from '../../../src/cluster/state/events.js';
import type { JobEnd } from '../../../src/cluster/lifecycle/cascade.js';
import { reconcile, type Reconciler } from '../../../src/cluster/lifecycle/reconcile.js';
import type { JobEntry } from '../../../src/cluster/state/model.js';
import { ClusterStore } from '../../../src/cluster/state/store.js';
import { PARENT_ENDED } from '../../../src/cluster/lifecycle/retries.js';
import { isImageReference } from '../../../src/model/image.js';
import { REF_REASON, hasStageRefs, resolveStageRefs } from '../../../src/model/stage-refs.js';
import { isFinalJobState, type JobState } from '../../../src/model/states.js';
import type { DependencyCondition, JobSpec } from '../../../src/model/types.js';
import { spec, workerSpec } from '../state/helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the reference reaches into the store's lifecycle and model */

/**
 * The recursive walk as it was before cascade.ts (lifecycle.ts endJob, settleDependents,
 * releaseStage), on the model's primitives, installed where the store runs a job's end
 * (state/lifecycle.ts StoreLifecycle.endJob); each task is ended by the lifecycle's own kill-task step.
 */
function installRecursiveWalk(store: ClusterStore): void {
  const life = (store as any).life;
  const m = life.m;
  const stateOf = (name: string): JobState | undefined => m.jobs.get(name)?.job.state;
  const settleDependents = (r: Reconciler, name: string): void => {
    for (const dependent of [...(m.dependents.get(name) ?? [])]) {
      const entry = m.jobs.get(dependent);
      if (!entry?.waiting || isFinalJobState(entry.job.state)) continue;
      const status = dependenciesStatus(entry.job.spec.after, stateOf);
      if (status.kind === 'met') releaseStage(r, entry);
      else if (status.kind === 'never') {
        const reason = dependencyFailureReason(status.on, status.state);
        m.patchJob(entry.job, { cause: { kind: 'dependency_failure', parent: status.on.job } });
        endJob(r, entry, 'FAILED', reason, reason, PARENT_ENDED);
      }
    }
  };
  const releaseStage = (r: Reconciler, entry: JobEntry): void => {
    const { job } = entry;
    const parts = { command: job.spec.command, env: job.spec.env, image: job.spec.image };
    if (!job.spec.stage || job.parent === null || !hasStageRefs(parts)) {
      m.releaseJob(entry);
      return;
    }
    const resolved = resolveStageRefs(parts, (stage) => {
      const referenced = m.jobs.get(`${job.parent}/${stage}`)?.job;
      return referenced && { state: referenced.state, tasks: life.view.resultsOf(referenced) };
    });
    if (resolved.kind === 'never') endJob(r, entry, 'FAILED', resolved.reason, resolved.reason, PARENT_ENDED);
    else if (resolved.kind === 'pending') m.patchJob(job, { reason: resolved.reason });
    else {
      const image = resolved.parts.image;
      if (image !== null && image !== job.spec.image && !isImageReference(image)) {
        const reason = `${REF_REASON}: image resolved to ${JSON.stringify(image)}, not an image reference`;
        endJob(r, entry, 'FAILED', reason, reason, PARENT_ENDED);
        return;
      }
      m.patchJob(job, { spec: { ...job.spec, ...resolved.parts } });
      m.releaseJob(entry);
    }
  };
  const endJob = (
    r: Reconciler,
    entry: JobEntry,
    state: JobState,
    reason: string | null,
    taskReason: string,
    childReason: string,
  ): void => {
    const { job } = entry;
    if (!isFinalJobState(job.state)) {
      m.patchJob(job, { state, reason, finishedAt: r.now });
      for (const t of entry.tasks) {
        const taskState = state === 'UNSCHEDULABLE' && t.state === 'PENDING' ? 'UNSCHEDULABLE' : 'KILLED';
        reconcile(r, [{ kind: 'kill-task', task: t, state: taskState, reason: taskReason }]);
      }
    }
    // Since issue 31 a success leaves the subtree running (lifecycle/jobs.ts endKillsChildren).
    if (state !== 'SUCCEEDED')
      for (const child of m.children.get(job.name) ?? []) {
        endJob(r, m.jobs.get(child)!, 'KILLED', childReason, childReason, childReason);
      }
    if (m.dependents.has(job.name)) settleDependents(r, job.name);
  };
  life.endJob = (end: JobEnd<JobEntry>): void =>
    endJob(life, end.entry, end.state, end.reason, end.taskReason, end.childReason);
}

interface JobPlan {
  /** Index of the parent (an earlier job), or null for a root. */
  parent: number | null;
  after: Array<{ on: number; condition: DependencyCondition }>;
  replicas: number;
  retries: number;
  /** A stage referring to a result of its first sibling dependency (when it has one). */
  refers: boolean;
}

/** `id`: this task (its job for cancel/unschedulable); else `job` and `task` choose one (see play). */
type Op = {
  kind: 'start' | 'succeed' | 'fail' | 'result' | 'cancel' | 'cancelTask' | 'unschedulable';
  job: number;
  task: number;
  id?: string;
};

const jobPlan = fc.record({
  parent: fc.option(fc.nat(), { nil: null }),
  after: fc.array(
    fc.record({ on: fc.nat(), condition: fc.constantFrom<DependencyCondition>('ok', 'ok', 'any', 'failed') }),
    { maxLength: 3 },
  ),
  replicas: fc.integer({ min: 1, max: 2 }),
  retries: fc.integer({ min: 0, max: 1 }),
  refers: fc.boolean(),
});
const op = fc.record({
  kind: fc.constantFrom<Op['kind']>(
    'start',
    'succeed',
    'succeed',
    'fail',
    'fail',
    'result',
    'result',
    'cancel',
    'cancelTask',
    'unschedulable',
  ),
  job: fc.nat(),
  task: fc.nat(1),
});

/** The specs of a plan: parents and dependencies point only to earlier jobs; depth at most 4. */
function specsOf(plans: readonly JobPlan[]): JobSpec[] {
  const names: string[] = [];
  return plans.map((plan, i) => {
    // Half of the children are siblings of the job before: dependencies between siblings are common.
    const previous = i === 0 ? null : names[i - 1]!.slice(0, names[i - 1]!.lastIndexOf('/')) || null;
    let parent = plan.parent === null || i === 0 ? null : plan.parent % 2 === 0 ? previous : names[plan.parent % i]!;
    if (parent !== null && parent.split('/').length > 4) parent = null;
    const name = `${parent ?? ''}/j${i}`;
    names.push(name);
    const after =
      i === 0
        ? []
        : [...new Map(plan.after.map((d) => [names[i - 1 - (d.on % Math.min(i, 3))]!, d.condition])).entries()].map(
            ([job, condition]) => ({ job, condition }),
          );
    const sibling = after.find(
      (d) => parent !== null && d.job.startsWith(`${parent}/`) && d.job.split('/').length === name.split('/').length,
    );
    const stage = plan.refers && sibling ? sibling.job.slice(sibling.job.lastIndexOf('/') + 1) : null;
    return spec(name, {
      replicas: plan.replicas,
      maxRetries: plan.retries,
      after,
      ...(stage ? { stage: { name: `j${i}`, needs: [stage] }, command: ['run', `\${stages.${stage}.result.k}`] } : {}),
    });
  });
}

interface Trace {
  outcomes: unknown[];
  events: StoreEvent[];
  history: unknown[];
  jobs: unknown[];
}

function play(specs: readonly JobSpec[], ops: readonly Op[], recursive: boolean): Trace {
  let t = 1000;
  const store = ClusterStore.open({ path: ':memory:', now: () => t });
  if (recursive) installRecursiveWalk(store);
  store.syncWorkers(Array.from({ length: 4 }, (_, i) => workerSpec(`w${i}`, { cpuMillis: 64_000 })));
  const trace: Trace = { outcomes: [], events: [], history: [], jobs: [] };
  const persistence = (store as any).persistence;
  const flush = persistence.flush.bind(persistence);
  persistence.flush = (model: unknown, journal: { history: unknown[] }) => {
    trace.history.push(...journal.history);
    flush(model, journal);
  };
  store.events.on('change', (e) => trace.events.push(structuredClone(e)));
  for (const s of specs) store.submit(s);
  for (const o of ops) {
    t += 1;
    // Starting, ending and publishing pick among the tasks that can run (queued or running).
    const live = [...store.queuedTasks(), ...store.activeAttempts().map((a) => store.task(a.task)!)]
      .map((x) => x.id)
      .sort();
    const pick =
      o.id ??
      (['start', 'succeed', 'fail', 'result'].includes(o.kind) && live.length > 0 ? live[o.job % live.length]! : null);
    const job = pick === null ? specs[o.job % specs.length]!.name : pick.slice(0, pick.lastIndexOf('/task-'));
    const id = pick ?? `${job}/task-${o.task % specs[o.job % specs.length]!.replicas}`;
    const task = store.task(id)!;
    try {
      // Ending or publishing starts the task first when it is in the queue: more of each run ends.
      if (['succeed', 'fail', 'result'].includes(o.kind) && store.queuedTasks().has(task)) {
        const a = store.assign(id, `w${t % 4}`, `/logs/${t}`);
        store.markRunning(id, a.attempt, 100);
        trace.outcomes.push(a.attempt);
      }
      switch (o.kind) {
        case 'start': {
          if (!store.queuedTasks().has(task)) {
            trace.outcomes.push('skip');
            break;
          }
          const a = store.assign(id, `w${t % 4}`, `/logs/${t}`);
          store.markRunning(id, a.attempt, 100);
          trace.outcomes.push(a.attempt);
          break;
        }
        case 'succeed':
        case 'fail':
          if (store.activeAttempts().every((a) => a.task !== id)) {
            trace.outcomes.push('skip');
            break;
          }
          trace.outcomes.push(
            store.finishAttempt(id, task.attempt, { kind: 'exited', exitCode: o.kind === 'succeed' ? 0 : 1 }),
          );
          break;
        case 'result':
          if (store.activeAttempts().every((a) => a.task !== id)) {
            trace.outcomes.push('skip');
            break;
          }
          store.setResults(id, task.attempt, { k: `v${t}` });
          trace.outcomes.push('result');
          break;
        case 'cancel':
          trace.outcomes.push(store.cancel(job, `cancelled ${t}`));
          break;
        case 'cancelTask':
          trace.outcomes.push(store.cancelTask(id, `task cancelled ${t}`));
          break;
        case 'unschedulable':
          trace.outcomes.push(store.markUnschedulable(job, `never fits ${t}`));
          break;
      }
    } catch (error) {
      trace.outcomes.push(`error: ${(error as Error).message}`);
    }
  }
  trace.jobs = [...store.jobs()].map((j) => ({ ...j, tasks: store.tasksOf(j.name).map((x) => [x.state, x.reason]) }));
  store.close();
  return trace;
}

describe('the cascade loop keeps the recursive order', () => {
  it(
    'same states, stop orders, events and history as the recursive walk, on random trees and dependency ' + 'graphs',
    () => {
      fc.assert(
        fc.property(
          fc.array(jobPlan, { minLength: 2, maxLength: 12 }),
          fc.array(op, { minLength: 5, maxLength: 40 }),
          (plans, ops) => {
            const specs = specsOf(plans);
            const loop = play(specs, ops, false);
            const recursive = play(specs, ops, true);
            expect(loop).toEqual(recursive);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it('the same, on a pipeline whose stages resolve result references, or fail on them, down a chain', () => {
    const stage = (name: string, needs: string[], over: Partial<JobSpec> = {}): JobSpec =>
      spec(`/p/${name}`, {
        stage: { name, needs },
        after: needs.map((need) => ({ job: `/p/${need}`, condition: 'ok' })),
        ...over,
      });
    const specs = [
      spec('/p'),
      stage('a', [], { replicas: 2 }),
      stage('b', ['a'], { command: ['run', '${stages.a.result.k}'] }),
      stage('c', ['a'], { command: ['run', '${stages.a.result.missing}'] }),
      stage('d', ['b']),
      stage('e', ['c']),
      stage('f', ['e', 'd'], {
        after: [
          { job: '/p/e', condition: 'any' },
          { job: '/p/d', condition: 'ok' },
        ],
      }),
      stage('g', ['f']),
    ];
    const op = (kind: Op['kind'], id: string): Op => ({ kind, job: 0, task: 0, id });
    const ops = [
      op('start', '/p/task-0'),
      op('result', '/p/a/task-0'),
      op('succeed', '/p/a/task-0'),
      op('succeed', '/p/a/task-1'),
      op('succeed', '/p/b/task-0'),
      op('fail', '/p/d/task-0'),
      op('cancel', '/p'),
    ];
    const loop = play(specs, ops, false);
    expect(loop).toEqual(play(specs, ops, true));
    const state = (name: string) =>
      (loop.jobs as Array<{ name: string; state: string; reason: string | null }>).find((j) => j.name === name);
    expect(state('/p/b')).toMatchObject({ state: 'SUCCEEDED' });
    expect(state('/p/c')!.reason).toMatch(/^stage_reference_failed/);
    expect(state('/p/e')).toMatchObject({ state: 'FAILED', reason: 'dependency /p/c failed' });
    expect(state('/p/g')).toMatchObject({ state: 'FAILED', reason: 'dependency /p/f failed' });
  });

  it('the reference really is the recursion: a long chain overflows it, not the loop', () => {
    const failHead = (recursive: boolean): ClusterStore => {
      const store = ClusterStore.open({ path: ':memory:' });
      if (recursive) installRecursiveWalk(store);
      store.syncWorkers([workerSpec('w1')]);
      store.submitAll(
        Array.from({ length: 5_000 }, (_, i) =>
          spec(`/c${i}`, { after: i === 0 ? [] : [{ job: `/c${i - 1}`, condition: 'ok' }] }),
        ),
      );
      const a = store.assign('/c0/task-0', 'w1', '/logs/c0');
      store.finishAttempt('/c0/task-0', a.attempt, { kind: 'exited', exitCode: 1 });
      return store;
    };
    expect(() => failHead(true)).toThrow(/Maximum call stack size exceeded/);
    const store = failHead(false);
    expect(store.job('/c4999')).toMatchObject({ state: 'FAILED', reason: 'dependency /c4998 failed' });
    store.close();
  });
});

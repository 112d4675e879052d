import { describe, expect, it } from 'vitest';
import { placementOptions } from '../../../../src/cluster/scheduler/index.js';
import { rootOf, typeOf } from '../../../../src/cluster/scheduler/placement/baselines.js';
import { schedule } from '../../../../src/cluster/scheduler/queue/first-fit.js';
import { QueueScheduler } from '../../../../src/cluster/scheduler/queue/index.js';
import type {
  PlacementMemory,
  RunningAllocation,
  SchedulerJob,
  Snapshot,
} from '../../../../src/cluster/scheduler/types.js';
import { GiB, gpuWorker, job, snapshot, tasksOf, where, worker } from '../helpers.js';

const staticWorker = placementOptions({ mode: 'static-worker' });
const fixedPipeline = placementOptions({ mode: 'fixed-pipeline' });
const roundRobin = placementOptions({ mode: 'round-robin' });

function running(j: SchedulerJob, workerId: string, index = 0): RunningAllocation {
  return {
    task: `${j.name}/task-${index}`,
    job: j.name,
    workerId,
    cpuMillis: j.resources.cpuMillis,
    memoryBytes: j.resources.memoryBytes,
    devices: 0,
    endsAt: Infinity,
  };
}

function memory(o: Partial<PlacementMemory>): PlacementMemory {
  return { roots: new Map(), types: new Map(), cursor: null, ...o };
}

function withState(s: Snapshot, o: { running?: RunningAllocation[]; placementMemory?: PlacementMemory }): Snapshot {
  return { ...s, ...o };
}

describe('names', () => {
  it('the root is the first path component, the type the last', () => {
    expect(rootOf('/train')).toBe('/train');
    expect(rootOf('/train/eval/x')).toBe('/train');
    expect(typeOf('/demo/train')).toBe('train');
    expect(typeOf('/train')).toBe('train');
    // Instance numbers are not part of the type.
    expect(typeOf('/infer-17')).toBe('infer');
    expect(typeOf('/ft-3-eval-a')).toBe('ft-eval-a');
    expect(typeOf('/infer-70b-2')).toBe('infer-70b');
    expect(typeOf('/42')).toBe('42');
  });
});

describe('static-worker', () => {
  it('binds a submission with its subtree to one worker and closes that worker to other submissions', () => {
    const workers = [worker('w0', { cpu: 8 }), worker('w1', { cpu: 8 })];
    const jobs = [job('/a', { seq: 0 }), job('/a/child', { seq: 1, replicas: 2 }), job('/b', { seq: 2 })];
    const plan = schedule(snapshot(jobs, workers), staticWorker);
    // Plain first-fit would put /b on w0 too (room for 4 tasks there).
    expect(where(plan)).toEqual({
      '/a/task-0': 'w0',
      '/a/child/task-0': 'w0',
      '/a/child/task-1': 'w0',
      '/b/task-0': 'w1',
    });
    expect(plan.placements[0]!.decision).toEqual({
      mode: 'static-worker',
      pool: 2,
      lambda: 0.5,
      score: 0,
      runnerUp: null,
      reuseHit: false,
    });
    expect(plan.placements[1]!.decision!.pool).toBe(1);
    expect(plan.placementMemory!.roots).toEqual(
      new Map([
        ['/a', 'w0'],
        ['/b', 'w1'],
      ]),
    );
  });

  it('a task whose bound worker is busy waits with the reason, though another worker is free', () => {
    const a = job('/a', { cpu: 4 });
    const child = job('/a/child', { cpu: 1, seq: 1 });
    const s = withState(snapshot([child], [worker('w0', { freeCpu: 0 }), worker('w1')]), {
      running: [running(a, 'w0')],
    });
    const plan = schedule(s, staticWorker);
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/a/child')).toBe('static-worker: bound to w0, which is busy');
  });

  it('a worker running a submission takes no task of another; with no open worker left the reason says so', () => {
    const a = job('/a');
    const b = job('/b', { seq: 1 });
    const w0 = worker('w0', { cpu: 8, freeCpu: 7 });
    expect(
      where(schedule(withState(snapshot([b], [w0, worker('w1')]), { running: [running(a, 'w0')] }), staticWorker)),
    ).toEqual({ '/b/task-0': 'w1' });
    const full = withState(snapshot([b], [w0, worker('w1', { freeCpu: 0 })]), { running: [running(a, 'w0')] });
    const plan = schedule(full, staticWorker);
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/b')).toBe('static-worker: every worker with room for it runs another submission');
  });

  it(
    'a binding from memory holds while the submission has work; it lapses once nothing of it is pending or ' +
      'running',
    () => {
      const next = job('/a/next');
      const s = withState(snapshot([next], [worker('w0'), worker('w1')]), {
        placementMemory: memory({
          roots: new Map([
            ['/a', 'w1'],
            ['/gone', 'w0'],
          ]),
        }),
      });
      const plan = schedule(s, staticWorker);
      expect(where(plan)).toEqual({ '/a/next/task-0': 'w1' });
      expect(plan.placementMemory!.roots).toEqual(new Map([['/a', 'w1']]));
      // A binding to a worker that takes no work (nothing of the submission runs there) is made anew.
      const drained = withState(snapshot([next], [worker('w0'), worker('w1', { schedulable: false })]), {
        placementMemory: memory({ roots: new Map([['/a', 'w1']]) }),
      });
      expect(where(schedule(drained, staticWorker))).toEqual({ '/a/next/task-0': 'w0' });
    },
  );

  it(
    'a job its worker can never hold (a GPU child of a gang on CPU hosts) goes to an open worker; the binding ' +
      'stays',
    () => {
      const gang = job('/g', { replicas: 2 });
      const child = job('/g/eval', { device: { type: 'gpu', variant: null, count: 1 }, seq: 1 });
      const other = job('/o', { seq: 2 });
      const workers = [
        worker('h0', { freeCpu: 3 }),
        worker('h1', { freeCpu: 3 }),
        gpuWorker('g0', 'H100', 1),
        gpuWorker('g1', 'H100', 1),
      ];
      const s = withState(snapshot([child, other], workers), {
        running: [running(gang, 'h0', 0), running(gang, 'h1', 1)],
      });
      const plan = schedule(s, staticWorker);
      // /o may not use h0 or h1 (they run /g), nor g0, which /g's child took.
      expect(where(plan)).toEqual({ '/g/eval/task-0': 'g0', '/o/task-0': 'g1' });
      expect(plan.placementMemory!.roots.get('/g')).toBe('h0');
    },
  );

  it('selection min-satisfying binds to the smallest worker that fits', () => {
    const workers = [worker('big', { cpu: 32, memGiB: 128 }), worker('small', { cpu: 2, memGiB: 4 })];
    const plan = schedule(
      snapshot([job('/a'), job('/a/b', { seq: 1 })], workers),
      placementOptions({ mode: 'static-worker', selection: 'min-satisfying' }),
    );
    expect(where(plan)).toEqual({ '/a/task-0': 'small', '/a/b/task-0': 'small' });
    expect(plan.placements[0]!.decision!.mode).toBe('static-worker+min-satisfying');
  });

  it(
    'under a planning queue policy the binding carries from pass to pass and a held-back job gets no ' + 'reservation',
    () => {
      const q = new QueueScheduler({ policy: 'easy' }, staticWorker);
      const a = job('/a', { cpu: 4, seq: 0 });
      const first = q.pass(snapshot([a], [worker('w0'), worker('w1')]));
      expect(where(first)).toEqual({ '/a/task-0': 'w0' });
      const child = job('/a/child', { cpu: 4, seq: 1 });
      const s = withState(snapshot([child], [worker('w0', { freeCpu: 0 }), worker('w1')]), {
        running: [{ ...running(a, 'w0'), endsAt: 5000 }],
      });
      const second = q.pass(s);
      expect(second.placements).toEqual([]);
      expect(second.reasons.get('/a/child')).toBe('static-worker: bound to w0, which is busy');
      expect(second.reservations!.size).toBe(0);
      expect(q.placementMemory!.roots.get('/a')).toBe('w0');
    },
  );
});

describe('fixed-pipeline', () => {
  it('a task type is bound to the first worker that took it; later tasks of the type wait for it', () => {
    const q = new QueueScheduler({ policy: 'first-fit' }, fixedPipeline);
    const first = q.pass(snapshot([job('/p1/train')], [worker('w0'), worker('w1')]));
    expect(where(first)).toEqual({ '/p1/train/task-0': 'w0' });
    expect(first.placements[0]!.decision).toMatchObject({ mode: 'fixed-pipeline', pool: 2, score: 0, runnerUp: null });
    expect(q.placementMemory!.types).toEqual(new Map([['train', 'w0']]));
    // w0 is full now: the next train waits although w1 is free; another type goes to w1.
    const train2 = job('/p2/train', { seq: 1 });
    const evalJob = job('/p2/eval', { seq: 2 });
    const second = q.pass(snapshot([train2, evalJob], [worker('w0', { freeCpu: 0 }), worker('w1')]));
    expect(where(second)).toEqual({ '/p2/eval/task-0': 'w1' });
    expect(second.reasons.get('/p2/train')).toBe('fixed-pipeline: type train runs only on w0, which is busy');
    expect(q.placementMemory!.types).toEqual(
      new Map([
        ['train', 'w0'],
        ['eval', 'w1'],
      ]),
    );
    // Unavailable (disabled) is waited for too; a worker gone from the cluster frees the type.
    const disabled = q.pass(
      snapshot([train2], [{ ...worker('w0'), schedulable: false, disabled: 'by user' }, worker('w1')]),
    );
    expect(disabled.reasons.get('/p2/train')).toBe(
      'fixed-pipeline: type train runs only on w0, which takes no work now (by user)',
    );
    expect(where(q.pass(snapshot([train2], [worker('w1')])))).toEqual({ '/p2/train/task-0': 'w1' });
    expect(q.placementMemory!.types.get('train')).toBe('w1');
  });

  it('a job of the type that its worker can never hold is placed as if unbound; the binding stays', () => {
    const s = withState(
      snapshot([job('/p/train', { cpu: 16 })], [worker('w0', { cpu: 4 }), worker('w1', { cpu: 32 })]),
      { placementMemory: memory({ types: new Map([['train', 'w0']]) }) },
    );
    const plan = schedule(s, fixedPipeline);
    expect(where(plan)).toEqual({ '/p/train/task-0': 'w1' });
    expect(plan.placementMemory!.types.get('train')).toBe('w0');
  });
});

describe('round-robin', () => {
  it('cycles over the workers in order instead of filling the first', () => {
    const workers = [worker('w0'), worker('w1'), worker('w2')];
    const plan = schedule(snapshot([job('/j', { replicas: 6 })], workers), roundRobin);
    expect(plan.placements.map((p) => p.workerId)).toEqual(['w0', 'w1', 'w2', 'w0', 'w1', 'w2']);
    expect(plan.placements[0]!.decision).toEqual({
      mode: 'round-robin',
      pool: 3,
      lambda: 0.5,
      score: 0,
      runnerUp: null,
      reuseHit: false,
    });
    expect(plan.placementMemory!.cursor).toBe('w2');
  });

  it('skips a worker that cannot hold the task and never exceeds a worker’s capacity', () => {
    const workers = [
      worker('w0', { cpu: 2 }),
      worker('w1', { freeCpu: 0 }),
      gpuWorker('g', 'H100', 1, { cpu: 1, memGiB: 64 }),
      worker('w3', { cpu: 1 }),
    ];
    const plan = schedule(snapshot([job('/j', { replicas: 5 })], workers), roundRobin);
    expect(plan.placements.map((p) => p.workerId)).toEqual(['w0', 'g', 'w3', 'w0']);
    expect(plan.reasons.has('/j')).toBe(true);
    // A GPU task only goes where a GPU is.
    const gpuJob = job('/gpu', { device: { type: 'gpu', variant: null, count: 1 }, memGiB: 1 });
    expect(where(schedule(snapshot([gpuJob], [worker('c0'), gpuWorker('g0', 'H100', 1)]), roundRobin))).toEqual({
      '/gpu/task-0': 'g0',
    });
  });

  it('the cursor carries from pass to pass (the next task goes after the worker that took the last)', () => {
    const q = new QueueScheduler({ policy: 'easy' }, roundRobin);
    const workers = [worker('w0'), worker('w1'), worker('w2')];
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      const j = job(`/j${i}`, { seq: i });
      const plan = q.pass(snapshot([j], workers, { pending: tasksOf(j) }));
      order.push(plan.placements[0]!.workerId);
    }
    expect(order).toEqual(['w0', 'w1', 'w2', 'w0']);
    // The estimate reads the cursor but does not move it.
    q.estimate(snapshot([], workers), job('/x', { seq: 9 }));
    expect(q.placementMemory!.cursor).toBe('w0');
  });

  it('selection does not change the order', () => {
    const workers = [worker('big', { cpu: 32, memGiB: 128 }), worker('small', { cpu: 2, memGiB: 4 })];
    const plan = schedule(
      snapshot([job('/j', { replicas: 2 })], workers),
      placementOptions({ mode: 'round-robin', selection: 'min-satisfying' }),
    );
    expect(plan.placements.map((p) => p.workerId)).toEqual(['big', 'small']);
    expect(plan.placements[0]!.decision!.mode).toBe('round-robin');
    void GiB;
  });
});

import { describe, expect, it } from 'vitest';
import { clusterView } from './view.js';
import { admit, type AdmissionDefaults, type ClusterView } from '../../../src/cluster/admission/index.js';
import { admitPipeline } from '../../../src/cluster/admission/pipeline.js';
import type { WorkerView } from '../../../src/cluster/scheduler/types.js';
import type { TaskCaller } from '../../../src/model/caller.js';
import { parseConstraint } from '../../../src/model/constraints.js';
import type { QueueCatalog } from '../../../src/model/queues.js';

const QUEUES: QueueCatalog = {
  queues: [
    { name: 'cpu', workers: [parseConstraint('pool=cpu')], timeLimitMs: 600_000, band: 'batch' },
    { name: 'gpu', workers: [parseConstraint('pool=gpu')], timeLimitMs: null, band: null },
  ],
  defaultQueue: 'cpu',
};
const DEFAULTS: AdmissionDefaults = {
  user: 'bob',
  cwd: '/home/bob',
  timeLimitMs: 3_600_000,
  maxPreemptions: 100,
  image: null,
  queues: QUEUES,
};
const worker = (id: string, pool: string, cpu: number): WorkerView => ({
  id,
  device: { type: 'cpu', variant: null, count: 0 },
  attributes: { pool },
  capacity: { cpuMillis: cpu * 1000, memoryBytes: 8 * 1024 ** 3 },
  free: { cpuMillis: cpu * 1000, memoryBytes: 8 * 1024 ** 3, devices: [] },
  schedulable: true,
});
const view = (over: Partial<ClusterView> = {}): ClusterView =>
  clusterView([worker('c0', 'cpu', 2), worker('g0', 'gpu', 8)], over);

describe('admission: named queues', () => {
  it('a root job joins the default queue with its time limit and band; --queue names another', () => {
    const root = admit({ name: 'a', command: ['x'] }, null, view(), DEFAULTS);
    expect(root).toMatchObject({ ok: true, spec: { queue: 'cpu', timeoutMs: 600_000, band: 'batch' } });
    const gpu = admit({ name: 'b', command: ['x'], queue: 'gpu' }, null, view(), DEFAULTS);
    expect(gpu).toMatchObject({ ok: true, spec: { queue: 'gpu', timeoutMs: 3_600_000, band: 'interactive' } });
  });

  it("a child joins its parent's queue (a task's, or a live stored parent's) unless it names another", () => {
    const caller: TaskCaller = {
      task: '/p/task-0',
      job: '/p',
      attempt: 0,
      user: 'bob',
      env: {},
      rootSubmittedAt: 0,
      queue: 'gpu',
    };
    expect(admit({ name: 'kid', command: ['x'] }, caller, view(), DEFAULTS)).toMatchObject({ spec: { queue: 'gpu' } });
    expect(admit({ name: 'k2', command: ['x'], queue: 'cpu' }, caller, view(), DEFAULTS)).toMatchObject({
      spec: { queue: 'cpu' },
    });
    const stored = view({ liveQueue: (name) => (name === '/p' ? 'gpu' : undefined) });
    expect(admit({ name: '/p/kid', command: ['x'] }, null, stored, DEFAULTS)).toMatchObject({ spec: { queue: 'gpu' } });
  });

  it('refuses an unknown queue (invalid_argument, did-you-mean) and one whose workers can never run the job', () => {
    expect(admit({ name: 'a', command: ['x'], queue: 'gpus' }, null, view(), DEFAULTS)).toMatchObject({
      ok: false,
      refusal: { code: 'invalid_argument', field: 'queue', hint: 'did you mean --queue gpu?' },
    });
    const big = admit({ name: 'a', command: ['x'], cpu: 4 }, null, view(), DEFAULTS);
    expect(big).toMatchObject({ ok: false, refusal: { code: 'unsatisfiable' } });
    expect(big.ok ? '' : big.refusal.message).toMatch(/can never run in queue cpu \(workers pool=cpu\)/);
    expect(admit({ name: 'a', command: ['x'], cpu: 4, queue: 'gpu' }, null, view(), DEFAULTS)).toMatchObject({
      ok: true,
    });
    const none = admit({ name: 'a', command: ['x'], queue: 'gpu' }, null, view(), { ...DEFAULTS, queues: null });
    expect(none).toMatchObject({ ok: false, refusal: { code: 'invalid_argument' } });
    expect(none.ok ? '' : none.refusal.message).toMatch(/this cluster has no named queues/);
  });

  it("pipeline stages join the root's queue unless they name another", () => {
    const specs = admitPipeline(
      { name: 'demo', stages: { a: { command: ['x'] }, b: { command: ['y'], queue: 'gpu', cpu: 4 } } },
      null,
      view(),
      DEFAULTS,
    );
    expect(specs.map((s) => `${s.name}:${s.queue}`)).toEqual(['/demo:cpu', '/demo/a:cpu', '/demo/b:gpu']);
  });
});

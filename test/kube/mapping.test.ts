/** Pure mappings of the kubernetes backend: Node → worker, launch → Pod, Pod status → exit, quantities. */
import { describe, expect, it } from 'vitest';
import { nodeAvailability, nodeWorker, nodeWorkers, tpuVariantOf, type NodeObject } from '../../src/kube/nodes.js';
import { podExit, podGone } from '../../src/kube/pod-status.js';
import { labelValue, podFor, podKey, podName } from '../../src/kube/pods.js';
import { cpuMillis, parseQuantity, wholeUnits } from '../../src/kube/quantity.js';
import type { TaskLaunch } from '../../src/runtime/types.js';
import { TPU_POOL_LABELS } from './tpu-pool.js';

const GiB = 1024 ** 3;

function node(
  name: string,
  o: {
    labels?: Record<string, string>;
    allocatable?: Record<string, string>;
    unschedulable?: boolean;
    ready?: string;
  } = {},
): NodeObject {
  return {
    metadata: { name, labels: o.labels ?? {} },
    spec: { unschedulable: o.unschedulable ?? false },
    status: {
      allocatable: o.allocatable ?? { cpu: '4', memory: '16Gi' },
      conditions: [{ type: 'Ready', status: o.ready ?? 'True' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
    },
  };
}

describe('quantities', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['16Gi', 16 * GiB],
    ['64000Ki', 64000 * 1024],
    ['1e3', 1000],
    ['2k', 2000],
    ['3M', 3e6],
  ])('%s is %d', (text, value) => expect(parseQuantity(text)).toBeCloseTo(value));
  it('cpu in millicores, whole units rounded down, unreadable is null', () => {
    expect(cpuMillis('250m')).toBe(250);
    expect(cpuMillis('3')).toBe(3000);
    expect(wholeUnits('1500m')).toBe(1);
    expect(parseQuantity('lots')).toBeNull();
    expect(cpuMillis(undefined)).toBeNull();
  });
});

describe('nodes as workers', () => {
  it('a cpu node: allocatable cpu and memory, labels as attributes, InternalIP as hostname', () => {
    const w = nodeWorker(
      node('n1', {
        labels: { zone: 'a', 'cloud.google.com/gke-nodepool': 'cpu-pool' },
        allocatable: { cpu: '3500m', memory: '12Gi' },
      }),
    );
    expect(w).toEqual({
      id: 'n1',
      cpuMillis: 3500,
      memoryBytes: 12 * GiB,
      device: { type: 'cpu', variant: null, count: 0 },
      attributes: {
        zone: 'a',
        'cloud.google.com/gke-nodepool': 'cpu-pool',
        'node-pool': 'cpu-pool',
        'device-type': 'cpu',
      },
      hostname: '10.0.0.7',
    });
  });

  it(
    'a TPU node: chips from google.com/tpu, the variant from accelerator + topology, the node pool as ' + 'tpu-name',
    () => {
      const w = nodeWorker(
        node('t0', { labels: TPU_POOL_LABELS, allocatable: { cpu: '8', memory: '32Gi', 'google.com/tpu': '4' } }),
      )!;
      expect(w.device).toEqual({ type: 'tpu', variant: 'v5litepod-16', count: 4 });
      expect(w.attributes).toMatchObject({
        'tpu-name': 'pool-a',
        'device-type': 'tpu',
        'device-variant': 'v5litepod-16',
      });
    },
  );

  it('TPU variants: known generations and grids map to iris names, unknown ones keep the label', () => {
    expect(tpuVariantOf('tpu-v5-lite-podslice', '2x4')).toBe('v5litepod-8');
    expect(tpuVariantOf('tpu-v4-podslice', '2x2x2')).toBe('v4-16');
    expect(tpuVariantOf('tpu-v9-future', '8x8')).toBe('tpu-v9-future-8x8');
  });

  it('a GPU node: count from nvidia.com/gpu, variant from gke-accelerator, else gpu.product', () => {
    const a = nodeWorker(
      node('g', {
        labels: { 'cloud.google.com/gke-accelerator': 'nvidia-h100-80gb' },
        allocatable: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '8' },
      }),
    )!;
    expect(a.device).toEqual({ type: 'gpu', variant: 'nvidia-h100-80gb', count: 8 });
    const b = nodeWorker(
      node('g2', {
        labels: { 'nvidia.com/gpu.product': 'NVIDIA-A100' },
        allocatable: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': '1' },
      }),
    )!;
    expect(b.device.variant).toBe('NVIDIA-A100');
  });

  it('the hosts of one pool are numbered in name order, each pool from 0', () => {
    const alloc = { cpu: '8', memory: '32Gi', 'google.com/tpu': '4' };
    const ws = nodeWorkers([
      node('t2', { labels: TPU_POOL_LABELS, allocatable: alloc }),
      node('t0', { labels: TPU_POOL_LABELS, allocatable: alloc }),
      node('u0', { labels: { ...TPU_POOL_LABELS, 'cloud.google.com/gke-nodepool': 'pool-b' }, allocatable: alloc }),
      node('c', {}),
      node('t1', { labels: TPU_POOL_LABELS, allocatable: alloc }),
    ]);
    expect(ws.map((w) => [w.id, w.attributes['tpu-worker-id']])).toEqual([
      ['c', undefined],
      ['t0', '0'],
      ['t1', '1'],
      ['t2', '2'],
      ['u0', '0'],
    ]);
  });

  it('availability: cordoned and not Ready nodes take no new work, with the reason', () => {
    expect(nodeAvailability(node('a'))).toEqual({ schedulable: true, reason: null });
    expect(nodeAvailability(node('a', { unschedulable: true }))).toEqual({
      schedulable: false,
      reason: 'node cordoned (unschedulable)',
    });
    expect(nodeAvailability(node('a', { ready: 'False' })).reason).toBe('node not Ready');
    expect(nodeAvailability({ metadata: { name: 'x' } }).reason).toBe('node not Ready (no Ready condition)');
  });
});

function launch(o: Partial<TaskLaunch> = {}): TaskLaunch {
  return {
    key: { job: '/train', task: '/train/task-3', attempt: 2 },
    argv: ['python', 'train.py'],
    env: { A: '1', IRIS_TASK_INDEX: '3' },
    cwd: '/home/u/.iris',
    logPath: '/home/u/.iris/logs/train/@1/task-3/attempt-2.log',
    resources: { cpuMillis: 1500, memoryBytes: 2 * GiB, device: null },
    deviceIndices: [],
    labels: {},
    workerId: 'n1',
    ...o,
  };
}

describe('the pod of an attempt', () => {
  it(
    'schedulerName iris, restartPolicy Never, no nodeName; argv, env, requests; identity in labels and ' +
      'annotations',
    () => {
      const pod = podFor(launch(), { clusterId: 'c-1', namespace: 'jobs', image: 'python:3.12' }, 10_000);
      expect(pod.spec).toEqual({
        schedulerName: 'iris',
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: 'task',
            image: 'python:3.12',
            command: ['python', 'train.py'],
            env: [
              { name: 'A', value: '1' },
              { name: 'IRIS_TASK_INDEX', value: '3' },
            ],
            resources: { requests: { cpu: '1500m', memory: String(2 * GiB) } },
          },
        ],
      });
      expect(pod.metadata.namespace).toBe('jobs');
      expect(pod.metadata.labels).toEqual({
        'iris/managed-by': 'iris',
        'iris/cluster': 'c-1',
        'iris/job': 'train',
        'iris/task': 'train-task-3',
        'iris/attempt': '2',
      });
      expect(podKey(pod)).toEqual({ job: '/train', task: '/train/task-3', attempt: 2 });
    },
  );

  it('the job image wins over the backend image; TPU chips are requests and limits', () => {
    const pod = podFor(
      launch({
        container: {
          image: 'jax:1',
          devices: [],
          gpuIds: [],
          mounts: [],
          shmBytes: null,
          memlockUnlimited: true,
          privileged: false,
          network: 'host',
        },
        cwd: '/work',
        resources: { cpuMillis: 1000, memoryBytes: GiB, device: { type: 'tpu', variant: 'v5litepod-16', chips: 16 } },
        deviceIndices: [0, 1, 2, 3],
        gang: { id: '/train@1', size: 4 },
      }),
      { clusterId: 'c', namespace: 'default', image: 'python:3.12' },
    );
    const c = pod.spec.containers[0]!;
    expect(c.image).toBe('jax:1');
    expect(c.workingDir).toBe('/work');
    expect(c.resources).toEqual({
      requests: { cpu: '1000m', memory: String(GiB), 'google.com/tpu': '4' },
      limits: { 'google.com/tpu': '4' },
    });
    expect(pod.metadata.annotations['iris/gang']).toBe('/train@1 (4 pods)');
  });

  it(
    "a container launch's token file becomes IRIS_TASK_TOKEN in the Pod's environment (a Pod has no engine-written " +
      'file)',
    () => {
      const pod = podFor(
        launch({
          env: { A: '1', IRIS_TASK_TOKEN_FILE: '/.iris-task/token' },
          container: {
            image: 'jax:1',
            devices: [],
            gpuIds: [],
            mounts: [],
            shmBytes: null,
            memlockUnlimited: false,
            privileged: false,
            network: 'bridge',
            tokenFile: {
              path: '/.iris-task/token',
              hostPath: '/home/u/.iris/logs/train/@1/task-3/attempt-2.token',
              token: 'tok',
              gid: 2_000_000,
            },
          },
        }),
        { clusterId: 'c', namespace: 'default', image: null },
      );
      expect(pod.spec.containers[0]!.env).toEqual([
        { name: 'A', value: '1' },
        { name: 'IRIS_TASK_TOKEN', value: 'tok' },
      ]);
    },
  );

  it('no image at all is a user error with a hint', () => {
    expect(() => podFor(launch(), { clusterId: 'c', namespace: 'default', image: null })).toThrow(/names no image/);
  });

  it('pod names: stable per attempt, distinct across attempts and clusters, valid DNS names', () => {
    const key = { job: '/a', task: '/a/Very_Long-Name/' + 'x'.repeat(80) + '/task-0', attempt: 0 };
    const name = podName('c', key);
    expect(name).toBe(podName('c', key));
    expect(name).not.toBe(podName('c', { ...key, attempt: 1 }));
    expect(name).not.toBe(podName('d', key));
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(labelValue('/train/eval/task-0')).toBe('train-eval-task-0');
  });
});

describe('pod status → exit', () => {
  const ctx = { stopping: false, memoryBytes: GiB };
  const terminated = (exitCode: number, reason?: string) => ({
    containerStatuses: [{ state: { terminated: { exitCode, ...(reason ? { reason } : {}) } } }],
  });

  it('not ended yet: null', () => {
    expect(podExit({ status: { phase: 'Pending' } }, ctx)).toBeNull();
    expect(podExit({ status: { phase: 'Running' } }, ctx)).toBeNull();
  });
  it('exit codes of Succeeded and Failed pods', () => {
    expect(podExit({ status: { phase: 'Succeeded', ...terminated(0) } }, ctx)).toEqual({ exitCode: 0, signal: null });
    expect(podExit({ status: { phase: 'Failed', ...terminated(3) } }, ctx)).toEqual({ exitCode: 3, signal: null });
  });
  it('OOMKilled gives the OOM mark and reason (the task ends OUT_OF_MEMORY)', () => {
    expect(podExit({ status: { phase: 'Failed', ...terminated(137, 'OOMKilled') } }, ctx)).toEqual({
      exitCode: null,
      signal: 'SIGKILL',
      oom: true,
      reason: 'OOM killed (memory limit 1GiB)',
    });
  });
  it('137 after an iris stop is its SIGKILL; otherwise the code as it is', () => {
    expect(podExit({ status: { phase: 'Failed', ...terminated(137) } }, { ...ctx, stopping: true })).toEqual({
      exitCode: null,
      signal: 'SIGKILL',
    });
    expect(podExit({ status: { phase: 'Failed', ...terminated(137) } }, ctx)).toEqual({ exitCode: 137, signal: null });
  });
  it('evicted and node-lost pods are lost (a preemption)', () => {
    expect(podExit({ status: { phase: 'Failed', reason: 'Evicted', message: 'low on memory' } }, ctx)).toEqual({
      exitCode: null,
      signal: null,
      lost: 'pod evicted: low on memory',
    });
    expect(podExit({ status: { phase: 'Failed', reason: 'NodeLost' } }, ctx)?.lost).toBe('pod nodelost');
  });
  it('an image that cannot be pulled ends the attempt with the reason', () => {
    const pod = {
      status: {
        phase: 'Pending',
        containerStatuses: [{ state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } }],
      },
    };
    expect(podExit(pod, ctx)).toEqual({
      exitCode: null,
      signal: null,
      reason: 'the container cannot start: ErrImagePull: not found',
    });
  });
  it('a pod that ended while someone else deleted it is lost; after an iris stop it is not', () => {
    const pod = {
      metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' },
      status: { phase: 'Failed', ...terminated(143) },
    };
    expect(podExit(pod, ctx)).toEqual({ exitCode: 143, signal: null, lost: 'pod deleted by someone else' });
    expect(podExit(pod, { ...ctx, stopping: true })).toEqual({ exitCode: 143, signal: null });
  });
  it('a pod gone: lost unless iris deleted it', () => {
    expect(podGone({ stopping: false })).toEqual({ exitCode: null, signal: null, lost: 'pod deleted by someone else' });
    expect(podGone({ stopping: true })).toEqual({ exitCode: null, signal: 'SIGTERM' });
  });
});

import { describe, expect, it } from 'vitest';
import { ClusterMetrics } from '../../../src/server/metrics/cluster-metrics.js';
import { failureCause } from '../../../src/server/metrics/derive.js';
import { memStore, spec, start } from '../../cluster/state/helpers.js';

/** The exposition lines that start with `prefix`, without HELP/TYPE comments. */
async function lines(metrics: ClusterMetrics, prefix: string): Promise<string[]> {
  const { text } = await metrics.exposition();
  return text.split('\n').filter((l) => l.startsWith(prefix) && !l.startsWith('#'));
}

describe('cluster metrics from a real store', () => {
  it('counts jobs and tasks by state at scrape time', async () => {
    const { store } = memStore(2);
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    store.submit(spec('/a', { replicas: 2 }));
    store.submit(spec('/b'));
    start(store, '/b/task-0');
    store.finishAttempt('/b/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(await lines(metrics, 'iris_jobs{')).toEqual(
      expect.arrayContaining([
        'iris_jobs{state="PENDING"} 1',
        'iris_jobs{state="SUCCEEDED"} 1',
        'iris_jobs{state="FAILED"} 0',
      ]),
    );
    expect(await lines(metrics, 'iris_tasks{')).toEqual(
      expect.arrayContaining(['iris_tasks{state="PENDING"} 2', 'iris_tasks{state="SUCCEEDED"} 1']),
    );
    expect(await lines(metrics, 'iris_queue_tasks')).toEqual(['iris_queue_tasks 2']);
    expect(await lines(metrics, 'iris_dispatches_total')).toEqual(['iris_dispatches_total 1']);
  });

  it('counts live tasks by band and state, every band and live state present from the start', async () => {
    const { store } = memStore(2);
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    const empty = await lines(metrics, 'iris_tasks_by_band{');
    expect(empty).toHaveLength(9);
    expect(empty.every((l) => l.endsWith(' 0'))).toBe(true);
    store.submit(spec('/p', { band: 'production' }));
    store.submit(spec('/b', { band: 'batch', replicas: 2 }));
    store.submit(spec('/i'));
    store.submit(spec('/done', { band: 'batch' }));
    start(store, '/p/task-0');
    start(store, '/done/task-0', 'w2');
    store.finishAttempt('/done/task-0', 0, { kind: 'exited', exitCode: 0 });
    expect(await lines(metrics, 'iris_tasks_by_band{')).toEqual(
      expect.arrayContaining([
        'iris_tasks_by_band{band="production",state="RUNNING"} 1',
        'iris_tasks_by_band{band="production",state="PENDING"} 0',
        'iris_tasks_by_band{band="interactive",state="PENDING"} 1',
        'iris_tasks_by_band{band="batch",state="PENDING"} 2',
        'iris_tasks_by_band{band="batch",state="RUNNING"} 0',
      ]),
    );
    expect((await lines(metrics, 'iris_tasks_by_band{')).some((l) => l.includes('SUCCEEDED'))).toBe(false);
  });

  it('the requeue counter starts at 0 for every reason and moves on a retry', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    expect(await lines(metrics, 'iris_task_requeues_total')).toEqual([
      'iris_task_requeues_total{reason="retry"} 0',
      'iris_task_requeues_total{reason="preemption"} 0',
      'iris_task_requeues_total{reason="gang_restart"} 0',
      'iris_task_requeues_total{reason="sticky_worker_busy"} 0',
    ]);
    store.submit(spec('/r', { maxRetries: 1 }));
    start(store, '/r/task-0');
    store.finishAttempt('/r/task-0', 0, { kind: 'exited', exitCode: 3 });
    expect(await lines(metrics, 'iris_task_requeues_total{reason="retry"}')).toEqual([
      'iris_task_requeues_total{reason="retry"} 1',
    ]);
    start(store, '/r/task-0');
    expect(await lines(metrics, 'iris_dispatches_total')).toEqual(['iris_dispatches_total 2']);
  });

  it('counts a failed job once, by cause, and a cancel not at all', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    store.submit(spec('/f'));
    start(store, '/f/task-0');
    store.finishAttempt('/f/task-0', 0, { kind: 'exited', exitCode: 1 });
    store.submit(spec('/k'));
    store.cancel('/k', 'cancelled by user');
    store.setPendingReasons(new Map());
    expect(await lines(metrics, 'iris_job_failures_total')).toEqual([
      'iris_job_failures_total{cause="dependency_failure"} 0',
      'iris_job_failures_total{cause="task_failed"} 1',
      'iris_job_failures_total{cause="unschedulable"} 0',
      'iris_job_failures_total{cause="worker_failed"} 0',
    ]);
  });

  it('with named queues, the queue gauges count by queue (a job stored without one in the default)', async () => {
    const { store } = memStore(0);
    const metrics = new ClusterMetrics(store, {
      processMetrics: false,
      queues: { names: ['batch', 'quick'], fallback: 'quick' },
    });
    store.submit(spec('/up', { queue: 'batch' }));
    store.submit(spec('/down', { queue: 'batch', after: [{ job: '/up', condition: 'ok' }] }));
    store.submit(spec('/plain'));
    expect(await lines(metrics, 'iris_queue_tasks')).toEqual([
      'iris_queue_tasks{queue="batch"} 1',
      'iris_queue_tasks{queue="quick"} 1',
    ]);
    expect(await lines(metrics, 'iris_queue_waiting_jobs')).toEqual([
      'iris_queue_waiting_jobs{queue="batch"} 1',
      'iris_queue_waiting_jobs{queue="quick"} 0',
    ]);
  });

  it('a dependent of a failed job counts as dependency_failure', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    store.submit(spec('/up'));
    store.submit(spec('/down', { after: [{ job: '/up', condition: 'ok' }] }));
    start(store, '/up/task-0');
    store.finishAttempt('/up/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.job('/down')!.cause?.kind).toBe('dependency_failure');
    expect(await lines(metrics, 'iris_job_failures_total{cause="dependency_failure"}')).toEqual([
      'iris_job_failures_total{cause="dependency_failure"} 1',
    ]);
  });

  it('a job that failed on its dependency, or was cancelled while waiting, no longer counts as waiting', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    store.submit(spec('/up'));
    store.submit(spec('/down', { after: [{ job: '/up', condition: 'ok' }] }));
    store.submit(spec('/side', { after: [{ job: '/up', condition: 'any' }] }));
    store.submit(spec('/gone', { after: [{ job: '/up', condition: 'any' }] }));
    expect(await lines(metrics, 'iris_queue_waiting_jobs')).toEqual(['iris_queue_waiting_jobs 3']);
    store.cancel('/gone', 'cancelled by user');
    expect(await lines(metrics, 'iris_queue_waiting_jobs')).toEqual(['iris_queue_waiting_jobs 2']);
    start(store, '/up/task-0');
    store.finishAttempt('/up/task-0', 0, { kind: 'exited', exitCode: 1 });
    expect(store.job('/down')!.state).toBe('FAILED');
    // /side was released (its condition is met) and /down failed: none waits.
    expect(await lines(metrics, 'iris_queue_waiting_jobs')).toEqual(['iris_queue_waiting_jobs 0']);
  });

  it('workers by state and the cost per hour of READY workers', async () => {
    const { store } = memStore(0);
    store.syncWorkers([
      {
        id: 'big',
        cpuMillis: 4000,
        memoryBytes: 1 << 30,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        costPerHour: 5,
      },
      {
        id: 'small',
        cpuMillis: 4000,
        memoryBytes: 1 << 30,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
      },
      {
        id: 'other',
        cpuMillis: 4000,
        memoryBytes: 1 << 30,
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        costPerHour: 2,
      },
    ]);
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    expect(await lines(metrics, 'iris_workers_cost_per_hour')).toEqual(['iris_workers_cost_per_hour 8']);
    store.drainWorker('other');
    expect(await lines(metrics, 'iris_workers_cost_per_hour')).toEqual(['iris_workers_cost_per_hour 6']);
    // Seed 003: a DISABLED worker (elastic or by the user) is excluded from the cost too.
    store.disableWorker('big', 'elastic', 'idle 1m');
    expect(await lines(metrics, 'iris_workers_cost_per_hour')).toEqual(['iris_workers_cost_per_hour 1']);
    expect(await lines(metrics, 'iris_workers{')).toEqual(
      expect.arrayContaining([
        'iris_workers{state="READY"} 1',
        'iris_workers{state="DISABLED"} 1',
        'iris_workers{state="DRAINED"} 1',
        'iris_workers{state="DRAINING"} 0',
      ]),
    );
  });

  it('a dispatch with a placement decision fills the pool and score histograms and counts a reuse hit', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store, { processMetrics: false });
    store.submit(spec('/p'));
    const attempt = store.assign('/p/task-0', 'w1', '/logs/p');
    // Until placement records its decision in the store, the store's event is fed as adaptive placement will send it.
    store.events.emit('change', {
      type: 'attempt',
      attempt: {
        ...attempt,
        attempt: 1,
        placement: { mode: 'adaptive', pool: 3, lambda: 0.5, score: 0.4, runnerUp: null, reuseHit: true },
      },
    });
    expect(await lines(metrics, 'iris_dispatches_total')).toEqual(['iris_dispatches_total 2']);
    expect(await lines(metrics, 'iris_dispatch_pool_size_count')).toEqual(['iris_dispatch_pool_size_count 1']);
    expect(await lines(metrics, 'iris_dispatch_pool_size_bucket{le="2"}')).toEqual([
      'iris_dispatch_pool_size_bucket{le="2"} 0',
    ]);
    expect(await lines(metrics, 'iris_dispatch_pool_size_bucket{le="4"}')).toEqual([
      'iris_dispatch_pool_size_bucket{le="4"} 1',
    ]);
    expect(await lines(metrics, 'iris_dispatch_score_sum')).toEqual(['iris_dispatch_score_sum 0.4']);
    expect(await lines(metrics, 'iris_dispatch_reuse_hits_total')).toEqual(['iris_dispatch_reuse_hits_total 1']);
  });

  it('observes pass durations and includes process metrics by default', async () => {
    const { store } = memStore();
    const metrics = new ClusterMetrics(store);
    metrics.passed(0.003);
    expect(await lines(metrics, 'iris_scheduling_pass_duration_seconds_count')).toEqual([
      'iris_scheduling_pass_duration_seconds_count 1',
    ]);
    expect((await lines(metrics, 'iris_process_resident_memory_bytes')).length).toBe(1);
    metrics.close();
  });

  it('failure causes follow the job state unless a cause is recorded', () => {
    expect(failureCause({ state: 'SUCCEEDED' })).toBeNull();
    expect(failureCause({ state: 'KILLED' })).toBeNull();
    expect(failureCause({ state: 'WORKER_FAILED' })).toBe('worker_failed');
    expect(failureCause({ state: 'UNSCHEDULABLE' })).toBe('unschedulable');
    expect(failureCause({ state: 'KILLED', cause: { kind: 'dependency_failure', parent: '/x' } })).toBe(
      'dependency_failure',
    );
  });
});

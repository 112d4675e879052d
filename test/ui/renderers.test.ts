import { describe, expect, it } from 'vitest';
import { enabledCostPerHour } from '../../src/model/types.js';
import type { ClusterInfo, JobDetail } from '../../src/api/types.js';
import { renderClusterStatus, renderEndpoints, renderWorkers } from '../../src/ui/cluster.js';
import { renderJobDetail } from '../../src/ui/job-detail.js';
import { formatUsage } from '../../src/ui/usage.js';
import { hideOldTrees } from '../../src/ui/job-filter.js';
import { parseJobStates as parseStates } from '../../src/model/states.js';
import { formatLogBatch, formatLogBatchJson, formatLogLine, taskLabel } from '../../src/ui/logs.js';
import { renderTable } from '../../src/ui/table.js';
import { makeStyle } from '../../src/ui/colour.js';
import { job, NOW, worker } from './fixtures.js';
import { joined } from '../helpers/regex.js';

describe('tables', () => {
  it('aligns columns, right-aligns numbers and trims trailing spaces', () => {
    const rows = [
      { a: 'x', n: 5, z: '' },
      { a: 'longer', n: 100, z: '' },
    ];
    expect(
      renderTable(rows, [
        { header: 'NAME', value: (r) => r.a },
        { header: 'N', value: (r) => String(r.n), right: true },
        { header: 'Z', value: (r) => r.z },
      ]),
    ).toBe(['NAME      N  Z', 'x         5', 'longer  100'].join('\n'));
  });
});

describe('workers and cluster', () => {
  const workers = [
    worker('local-0', { runningTasks: ['/train/task-0'] }),
    worker('tpu-a-0', {
      device: { type: 'tpu', variant: 'v5litepod-16', count: 4 },
      attributes: { 'device-type': 'tpu', 'tpu-name': 'slice-a', 'tpu-worker-id': '0' },
      capacity: { cpuMillis: 8000, memoryBytes: 16 * 1024 ** 3, devices: 4 },
      used: { cpuMillis: 0, memoryBytes: 0, devices: 0 },
      state: 'DRAINED',
    }),
  ];

  it('lists capacity, use and user attributes', () => {
    expect(renderWorkers(workers)).toBe(
      [
        'WORKER   STATE    DEVICE                      CPU    MEMORY       DEVICES  TASKS  ATTRIBUTES',
        'local-0  READY    cpu                         1.5/4  512MiB/8GiB  -            1  region=us-central1',
        'tpu-a-0  DRAINED  tpu v5litepod-16 (4 chips)  0/8    0B/16GiB     0/4          0  tpu-name=slice-a ' +
          'tpu-worker-id=0',
      ].join('\n'),
    );
  });

  it('summarises the cluster', () => {
    const info: ClusterInfo = {
      clusterId: 'c-1',
      pid: 42,
      socket: '/h/iris.sock',
      home: '/h',
      config: { path: null },
      metrics: { url: null },
      version: '0.1.0',
      startedAt: NOW - 3_600_000,
      workers,
      cpu: { capacityMillis: 12_000, usedMillis: 1500, releasedMillis: 0, oversubscribedMillis: 0 },
      queue: { pending: 3, running: 1, jobs: { RUNNING: 1, PENDING: 2 }, policy: 'easy', passes: 12 },
    };
    const text = renderClusterStatus(info, NOW);
    expect(text).toContain('Cluster:  c-1 (pid 42, iris 0.1.0)');
    expect(text).toContain('CPU:      1.5/12 cores in use');
    expect(text).toContain('Devices:  0/4 in use');
    expect(text).toContain('Tasks:    1 running, 3 pending');
    expect(text).toContain('Queue:    policy easy, 12 scheduling passes');
    expect(text).toContain('Jobs:     1 RUNNING, 2 PENDING');
    expect(text).toContain('local-0');
    const once = renderClusterStatus({ ...info, queue: { ...info.queue, passes: 1 } }, NOW);
    expect(once).toContain('Queue:    policy easy, 1 scheduling pass\n');
    const queue = { policy: 'fcfs', workerCount: 2, workers: 'every worker', pending: 0, running: 0 };
    const queues = [
      { ...queue, name: 'batch', default: true },
      { ...queue, name: 'quick', default: false },
    ];
    const named = renderClusterStatus({ ...info, queues }, NOW);
    expect(named).toContain('Queue:    2 named queues (below), 12 scheduling passes');
    expect(named).toMatch(/batch \(default\) +fcfs/);
  });

  it('shows the task door on TCP only when the cluster has one', () => {
    const info: ClusterInfo = {
      clusterId: 'c-1',
      pid: 42,
      socket: '/h/iris.sock',
      home: '/h',
      config: { path: null },
      metrics: { url: null },
      version: '0.1.0',
      startedAt: NOW,
      workers: [worker('local-0')],
      cpu: { capacityMillis: 2000, usedMillis: 0, releasedMillis: 0, oversubscribedMillis: 0 },
      queue: { pending: 0, running: 0, jobs: {}, policy: 'easy', passes: 1 },
    };
    expect(renderClusterStatus(info, NOW)).not.toContain('Task door');
    const text = renderClusterStatus(
      { ...info, taskDoor: { listen: '0.0.0.0:7070', advertise: 'http://iris-task-door:7070' } },
      NOW,
    );
    expect(text).toContain('Task door:  tcp 0.0.0.0:7070; tasks are given http://iris-task-door:7070');
    expect(text).toContain('Socket:     /h/iris.sock');
  });

  it('counts workers by state, costs only ready workers, and lists the disabled ones', () => {
    const off = worker('local-1', {
      state: 'DISABLED',
      disabled: { by: 'elastic', reason: 'idle 1m', disabledAt: NOW - 5000 },
    });
    const info: ClusterInfo = {
      clusterId: 'c-1',
      pid: 42,
      socket: '/h/iris.sock',
      home: '/h',
      config: { path: null },
      metrics: { url: null },
      version: '0.1.0',
      startedAt: NOW,
      workers: [worker('local-0'), off],
      cpu: { capacityMillis: 2000, usedMillis: 0, releasedMillis: 0, oversubscribedMillis: 0 },
      cost: { perHour: 2.5, excluded: 1 },
      queue: { pending: 0, running: 0, jobs: {}, policy: 'easy', passes: 1 },
    };
    const text = renderClusterStatus(info, NOW);
    expect(text).toContain('Workers:  2 (1 ready, 1 disabled)');
    expect(text).toContain('Cost:     2.5/h (ready workers; 1 disabled or drained not counted)');
    expect(text).toMatch(/Disabled workers \(1\)[^\n]*\n.*\nlocal-1\s+elastic\s+idle 1m\s+5s ago/);
    expect(
      enabledCostPerHour([
        { state: 'READY', costPerHour: 2 },
        { state: 'READY' },
        { state: 'DISABLED', costPerHour: 9 },
        { state: 'DRAINED' },
      ]),
    ).toBe(3);
  });

  it('shows CPU released by waiting tasks and CPU held beyond capacity', () => {
    const waiting = worker('local-0', {
      capacity: { cpuMillis: 1000, memoryBytes: 1 << 30, devices: 0 },
      used: { cpuMillis: 1000, memoryBytes: 0, devices: 0 },
      cpuReleasedMillis: 1000,
    });
    const over = worker('local-1', {
      capacity: { cpuMillis: 1000, memoryBytes: 1 << 30, devices: 0 },
      used: { cpuMillis: 2000, memoryBytes: 0, devices: 0 },
      cpuOversubscribedMillis: 1000,
    });
    const table = renderWorkers([waiting, over]);
    expect(table).toContain('1/1 (1 released)');
    expect(table).toContain('2/1 (1 over)');
    const info: ClusterInfo = {
      clusterId: 'c-1',
      pid: 42,
      socket: '/h/iris.sock',
      home: '/h',
      config: { path: null },
      metrics: { url: null },
      version: '0.1.0',
      startedAt: NOW,
      workers: [waiting, over],
      cpu: { capacityMillis: 2000, usedMillis: 3000, releasedMillis: 1000, oversubscribedMillis: 1000 },
      queue: { pending: 0, running: 3, jobs: {}, policy: 'easy', passes: 1 },
    };
    expect(renderClusterStatus(info, NOW)).toContain('CPU:      3/2 cores in use (1 released, 1 over)');
  });

  it('lists endpoints', () => {
    expect(renderEndpoints([], NOW)).toBe('no endpoints');
    expect(
      renderEndpoints(
        [
          {
            name: '/train/coord',
            address: '10.0.0.1:8476',
            task: '/train/task-0',
            attempt: 1,
            job: '/train',
            registeredAt: NOW - 2000,
          },
        ],
        NOW,
      ),
    ).toBe(
      [
        'NAME          JOB     ADDRESS        TASK              AGE',
        '/train/coord  /train  10.0.0.1:8476  /train/task-0[1]  2s',
      ].join('\n'),
    );
  });
});

describe('job detail', () => {
  const detail: JobDetail = {
    ...job('/train', {
      state: 'PENDING',
      reason: 'need 4 CPU, largest free worker has 2',
      replicas: 2,
      tasks: { total: 2, byState: { PENDING: 1, FAILED: 1 } },
    }),
    command: ['python', 'train.py', '--msg', 'hello world'],
    resources: { cpu: 0.5, memoryBytes: 512 * 1024 ** 2, device: 'cpu' },
    constraints: [{ key: 'region', op: 'eq', values: ['us'] }],
    coschedule: null,
    maxRetries: 1,
    maxTaskFailures: 0,
    maxPreemptions: 100,
    timeoutMs: 600_000,
    schedulingTimeoutMs: null,
    taskList: [
      {
        id: '/train/task-0',
        index: 0,
        state: 'FAILED',
        attempt: 1,
        workerId: 'local-0',
        exitCode: 3,
        reason: 'exit code 3',
        failures: 2,
        preemptions: 0,
        startedAt: NOW - 30_000,
        finishedAt: NOW - 20_000,
        attempts: [
          {
            attempt: 0,
            workerId: 'local-0',
            state: 'FAILED',
            exitCode: 3,
            reason: 'exit code 3',
            startedAt: NOW - 60_000,
            finishedAt: NOW - 55_000,
            logCutBytes: null,
            cpuSeconds: null,
            peakMemoryBytes: null,
          },
          {
            attempt: 1,
            workerId: 'local-0',
            state: 'FAILED',
            exitCode: 3,
            reason: 'exit code 3',
            startedAt: NOW - 30_000,
            finishedAt: NOW - 20_000,
            logCutBytes: 512 * 1024 ** 2,
            cpuSeconds: 1.234,
            peakMemoryBytes: 45 * 1024 ** 2,
          },
        ],
      },
      {
        id: '/train/task-1',
        index: 1,
        state: 'PENDING',
        attempt: 0,
        workerId: null,
        exitCode: null,
        reason: null,
        failures: 0,
        preemptions: 0,
        startedAt: null,
        finishedAt: null,
        attempts: [],
      },
    ],
    children: [job('/train/eval', { state: 'KILLED', reason: 'parent job ended' })],
  };

  it('shows fields, tasks, attempts and children', () => {
    const text = renderJobDetail(detail, NOW);
    expect(text).toContain('Pending reason:  need 4 CPU, largest free worker has 2');
    expect(text).toContain("Command:         python train.py --msg 'hello world'");
    expect(text).toContain('Resources:       cpu 0.5 memory 512MiB device cpu');
    expect(text).toContain('Constraints:     region=us');
    expect(text).toContain('Time limit:      10m00s');
    expect(text).toMatch(/\/train\/task-0\s+FAILED\s+1\s+local-0\s+3\s+10s\s+2\/0\s+exit code 3/);
    expect(text).toMatch(/\/train\/task-1\s+PENDING\s+0\s+-\s+-\s+-\s+0\/0/);
    expect(text).toMatch(/Attempts:\n\s+TASK\s+ATTEMPT/);
    expect(text).toMatch(/\/train\/task-0\s+0\s+FAILED\s+local-0\s+3\s+5s\s+-\s+exit code 3\n/);
    expect(text).toMatch(
      /\/train\/task-0\s+1\s+FAILED\s+local-0\s+3\s+10s\s+cpu 1\.2s · peak 45MiB\s+exit code 3; log cut at 512MiB/,
    );
    expect(text).toMatch(/Children:\n.*\n\s+\/train\/eval\s+KILLED\s+0\/1 ok, 1 running\s+parent job ended/);
  });

  it('says how many jobs below an ended job are still running or pending', () => {
    const ended: JobDetail = {
      ...detail,
      state: 'SUCCEEDED',
      reason: null,
      children: [job('/train/bg', { state: 'RUNNING' })],
      liveDescendants: 2,
    };
    const text = renderJobDetail(ended, NOW);
    expect(text).toMatch(/^State:\s+SUCCEEDED \(2 jobs below it still running or pending\)$/m);
    expect(text).toMatch(/Children:\n.*\n\s+\/train\/bg\s+RUNNING/);
    expect(renderJobDetail({ ...ended, liveDescendants: 1 }, NOW)).toMatch(/SUCCEEDED \(1 job below it still/);
    expect(renderJobDetail(detail, NOW)).toMatch(/^State:\s+PENDING$/m);
  });

  it('formats measured usage, with - for what is unknown', () => {
    expect(formatUsage({ cpuSeconds: 1.234, peakMemoryBytes: 45 * 1024 ** 2 })).toBe('cpu 1.2s · peak 45MiB');
    expect(formatUsage({ cpuSeconds: 0.31, peakMemoryBytes: null })).toBe('cpu 0.3s · peak -');
    expect(formatUsage({ cpuSeconds: 0.004, peakMemoryBytes: 1536 * 1024 })).toBe('cpu 4ms · peak 1.5MiB');
    expect(formatUsage({ cpuSeconds: 245, peakMemoryBytes: 2 * 1024 ** 3 })).toBe('cpu 4m05s · peak 2GiB');
    expect(formatUsage({ cpuSeconds: null, peakMemoryBytes: null })).toBe('-');
  });

  it('counts requeue events by reason and lists the latest, with the job for a sticky wait', () => {
    const requeues = {
      total: 3,
      byReason: { retry: 1, sticky_worker_busy: 2 },
      recent: [
        {
          time: NOW - 55_000,
          reason: 'retry' as const,
          task: '/train/task-0',
          attempt: 0,
          detail: 'exit 3; retry 1 of 1',
        },
        {
          time: NOW - 5_000,
          reason: 'sticky_worker_busy' as const,
          task: null,
          attempt: null,
          detail: 'waiting for worker w1 (where /p/train ran)',
        },
      ],
    };
    const text = renderJobDetail({ ...detail, requeues }, NOW);
    expect(text).toMatch(/Requeues:\s+3 \(sticky_worker_busy 2, retry 1\)\n/);
    expect(text).toMatch(/Requeues \(latest 2 of 3\):\n\s+WHEN\s+TASK\s+ATTEMPT\s+REASON\s+DETAIL\n/);
    expect(text).toMatch(/55s ago\s+\/train\/task-0\s+0\s+retry\s+exit 3; retry 1 of 1\n/);
    expect(text).toMatch(/5s ago\s+\/train\s+-\s+sticky_worker_busy\s+waiting for worker w1 \(where \/p\/train ran\)/);
    expect(renderJobDetail(detail, NOW)).not.toContain('Requeues');
  });

  it('shows how adaptive placement chose each scored attempt, and no Placement section when none was scored', () => {
    const [t0, t1] = detail.taskList;
    const decision = {
      mode: 'adaptive',
      pool: 3,
      lambda: 0.8,
      score: 0.7412,
      runnerUp: { workerId: 'w2', score: 0.6071 },
      reuseHit: true,
    };
    const scored = {
      ...detail,
      taskList: [{ ...t0!, attempts: [t0!.attempts[0]!, { ...t0!.attempts[1]!, placement: decision }] }, t1!],
    };
    const text = renderJobDetail(scored, NOW);
    expect(text).toMatch(
      joined(
        /Placement:\n\s+TASK\s+ATTEMPT\s+WORKER\s+DECISION\n\s+\/train\/task-0\s+1\s+loc/,
        /al-0\s+adaptive: 3 candidates, λ 0\.8, score 0\.74 \(next w2 0\.61\), reuse hit/,
      ),
    );
    expect(text).not.toMatch(/task-0\s+0\s+local-0\s+adaptive/);
    const alone = { ...decision, pool: 1, runnerUp: null, reuseHit: false };
    expect(
      renderJobDetail(
        { ...detail, taskList: [{ ...t0!, attempts: [{ ...t0!.attempts[0]!, placement: alone }] }] },
        NOW,
      ),
    ).toMatch(/adaptive: 1 candidate, λ 0\.8, score 0\.74\n?$/m);
    expect(renderJobDetail(detail, NOW)).not.toContain('Placement:');
  });

  it('shows who submitted a job for another user', () => {
    expect(renderJobDetail({ ...detail, user: 'erin', submitter: 'root' }, NOW)).toMatch(
      /User:\s+erin \(submitted by root for erin\)\n/,
    );
    expect(renderJobDetail(detail, NOW)).not.toContain('submitted by');
  });
});

describe('text others wrote is escaped in every table and field', () => {
  const ESC = '\u001b';
  it('reasons, commands and children of a job show control characters as escapes; states keep their colour', () => {
    const base = job('/t', { state: 'FAILED', reason: `bad ${ESC}[2J${ESC}]0;title\u0007` });
    const detail: JobDetail = {
      ...base,
      command: ['sh', '-c', `echo ${ESC}[31m`],
      resources: { cpu: 1, memoryBytes: 1024 ** 3, device: 'cpu' },
      constraints: [],
      coschedule: null,
      maxRetries: 0,
      maxTaskFailures: 0,
      maxPreemptions: 0,
      timeoutMs: null,
      schedulingTimeoutMs: null,
      taskList: [
        {
          id: '/t/task-0',
          index: 0,
          state: 'FAILED',
          attempt: 0,
          workerId: 'w',
          exitCode: 1,
          reason: `x\u009b2J`,
          failures: 1,
          preemptions: 0,
          startedAt: NOW - 2000,
          finishedAt: NOW - 1000,
          attempts: [
            {
              attempt: 0,
              workerId: 'w',
              state: 'FAILED',
              exitCode: 1,
              reason: `y\n${ESC}c`,
              startedAt: NOW - 2000,
              finishedAt: NOW - 1000,
              logCutBytes: null,
              cpuSeconds: null,
              peakMemoryBytes: null,
            },
          ],
        },
      ],
      children: [job('/t/c', { state: 'KILLED', reason: `${ESC}[H` })],
    };
    const plain = renderJobDetail(detail, NOW);
    expect(plain).toContain('Reason:     bad \\x1b[2J\\x1b]0;title\\x07');
    expect(plain).toContain("Command:    sh -c 'echo \\x1b[31m'");
    expect(plain).toContain('x\\x9b2J');
    expect(plain).toContain('y\\n\\x1bc');
    expect(plain).toContain('\\x1b[H');
    expect(plain).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const coloured = renderJobDetail(detail, NOW, makeStyle(true));
    expect(coloured).toContain(`State:      ${ESC}[31mFAILED${ESC}[39m`);
    expect(coloured).toContain(`${ESC}[31mFAILED${ESC}[39m`);
    // The only escape codes left are the states' colours.
    expect(coloured.replace(/\u001b\[(31|39|90)m/g, '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
});

describe('logs', () => {
  it('labels tasks relative to the target', () => {
    expect(taskLabel('/train/task-0', '/train')).toBe('task-0');
    expect(taskLabel('/train/eval/task-1', '/train')).toBe('eval/task-1');
    expect(taskLabel('/train/task-0', '/train/task-0')).toBe('task-0');
    expect(taskLabel('/other/task-0', '/train')).toBe('/other/task-0');
  });

  it('formats a batch as one string, its lines prefixed like single lines', () => {
    const time = new Date(2025, 0, 2, 9, 5, 7, 42).getTime();
    const batch = {
      task: '/train/eval/task-0',
      attempt: 2,
      stream: 'stdout' as const,
      times: [time, 2, time + 1, 1],
      text: 'a\n\nc',
    };
    expect(formatLogBatch(batch, '/train')).toBe(
      '09:05:07.042 eval/task-0[2] a\n09:05:07.042 eval/task-0[2] \n09:05:07.043 eval/task-0[2] c\n',
    );
    expect(
      formatLogBatchJson(batch)
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      { time: new Date(time).toISOString(), task: '/train/eval/task-0', attempt: 2, stream: 'stdout', text: 'a' },
      { time: new Date(time).toISOString(), task: '/train/eval/task-0', attempt: 2, stream: 'stdout', text: '' },
      { time: new Date(time + 1).toISOString(), task: '/train/eval/task-0', attempt: 2, stream: 'stdout', text: 'c' },
    ]);
    expect(formatLogBatch(batch, '/train', { date: true })).toBe(
      '2025-01-02 09:05:07.042 eval/task-0[2] a\n2025-01-02 09:05:07.042 eval/task-0[2] \n2025-01-02 09:05:07.043 ' +
        'eval/task-0[2] c\n',
    );
  });

  it('prefixes time, task and attempt', () => {
    const time = new Date(2025, 0, 2, 9, 5, 7, 42).getTime();
    expect(
      formatLogLine({ time, task: '/train/task-2', attempt: 1, stream: 'stdout', text: 'step 10' }, '/train'),
    ).toBe('09:05:07.042 task-2[1] step 10');
  });
});

describe('jobs filters', () => {
  it('parses states in any case, comma-separated', () => {
    expect(parseStates(['running,pending', 'FAILED', 'worker-failed'])).toEqual([
      'RUNNING',
      'PENDING',
      'FAILED',
      'WORKER_FAILED',
    ]);
    expect(() => parseStates(['runing'])).toThrow(/unknown job state "runing"/);
  });

  it('hides trees that finished more than an hour ago', () => {
    const old = { state: 'SUCCEEDED' as const, finishedAt: NOW - 2 * 3_600_000 };
    const jobs = [
      job('/old', old),
      job('/old/child', old),
      job('/recent', { state: 'FAILED', finishedAt: NOW - 60_000 }),
      job('/live', old),
      job('/live/x'),
    ];
    expect(hideOldTrees(jobs, NOW).map((j) => j.name)).toEqual(['/recent', '/live', '/live/x']);
  });
});

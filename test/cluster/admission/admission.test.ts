/** Admission as a table: naming, a task caller's children, TPU gangs, defaults, never-fit, quota. */
import { describe, expect, it } from 'vitest';
import {
  admit,
  resolveJob,
  type AdmissionDefaults,
  type AdmissionRequest,
  type ClusterView,
} from '../../../src/cluster/admission/index.js';
import type { TaskCaller } from '../../../src/model/caller.js';
import type { Quota } from '../../../src/model/types.js';
import type { WorkerView } from '../../../src/cluster/scheduler/types.js';
import { IrisError } from '../../../src/model/errors.js';

const CALLER: TaskCaller = {
  task: '/train/task-0',
  job: '/train',
  attempt: 0,
  user: 'alice',
  env: { DATA: '/data', SHARED: 'parent', IRIS_TASK_ID: '/train/task-0' },
  rootSubmittedAt: 1000,
};

const DEFAULTS: AdmissionDefaults = {
  user: 'bob',
  cwd: '/home/bob',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
};

function worker(id: string, cpus: number, attributes: Record<string, string> = {}): WorkerView {
  return {
    id,
    device: { type: 'cpu', variant: null, count: 0 },
    attributes,
    capacity: { cpuMillis: cpus * 1000, memoryBytes: 8 * 1024 ** 3 },
    free: { cpuMillis: cpus * 1000, memoryBytes: 8 * 1024 ** 3, devices: [] },
    schedulable: true,
  };
}

function view(over: Partial<ClusterView> = {}): ClusterView {
  let n = 0;
  return {
    workers: [worker('w0', 4), worker('w1', 4)],
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: () => false,
    generateName: () => `gen-${++n}`,
    jobState: () => undefined,
    dependenciesOf: () => [],
    ...over,
  };
}

const CMD = { command: ['python', 'train.py'] };

function resolve(
  request: AdmissionRequest,
  caller: TaskCaller | null = null,
  defaults: Partial<AdmissionDefaults> = {},
) {
  return resolveJob(request, caller, view(), { ...DEFAULTS, ...defaults });
}

function refused(
  request: AdmissionRequest,
  caller: TaskCaller | null = null,
  defaults: Partial<AdmissionDefaults> = {},
): IrisError {
  try {
    resolve(request, caller, defaults);
  } catch (error) {
    expect(error).toBeInstanceOf(IrisError);
    return error as IrisError;
  }
  throw new Error(`expected ${JSON.stringify(request)} to be refused`);
}

describe('naming', () => {
  it.each([
    ['eval', null, '/eval', false],
    ['/exp/run1', null, '/exp/run1', false],
    [undefined, null, '/gen-1', true],
    [null, null, '/gen-1', true],
    ['eval', CALLER, '/train/eval', false],
    ['eval/deep', CALLER, '/train/eval/deep', false],
    ['/train/eval', CALLER, '/train/eval', false],
    [undefined, CALLER, '/train/gen-1', true],
  ] as const)('name %j with caller %j -> %s', (name, caller, expected, generated) => {
    expect(resolve({ ...CMD, name }, caller)).toMatchObject({ spec: { name: expected }, generated });
  });

  it.each(['task-3', 'a/task-0', 'eval/task-12'])('refuses %s: task-<n> names tasks', (name) => {
    expect(refused({ ...CMD, name }).message).toMatch(/reserved for task names/);
    expect(refused({ ...CMD, name }, CALLER).message).toMatch(/reserved for task names/);
  });

  it.each(['/train', '/other', '/trainer/x'])('refuses the absolute name %s for a child of /train', (name) => {
    const error = refused({ ...CMD, name }, CALLER);
    expect(error.code).toBe('forbidden');
    expect(error.message).toBe(`name "${name}": a task may only create children under its own job /train`);
    expect(error.hint).toBe('use a relative name such as "eval" to create /train/eval');
  });

  it.each([
    ['', 'empty'],
    ['   ', 'blank'],
  ])('refuses the name %j (%s) instead of generating one', (name, word) => {
    for (const caller of [null, CALLER]) {
      const error = refused({ ...CMD, name }, caller);
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toBe(`name may not be ${word}`);
      expect(error.hint).toMatch(/leave the name out/);
    }
  });

  it('a huge bad name is cut in the message, not echoed whole', () => {
    const name = 'x'.repeat(10_000) + '!';
    const error = refused({ ...CMD, name });
    expect(error.code).toBe('invalid_argument');
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toContain('(10001 characters)');
  });

  it('refuses a cpu that no number of cores could be, as a usage error', () => {
    for (const cpu of ['99999999999', 1e308, '2000000']) {
      const error = refused({ ...CMD, cpu });
      expect(error.code).toBe('invalid_argument');
      expect(error.message).toMatch(/^invalid cpu .*: at most 1000000 cores$/);
    }
  });

  it('retries generated names that are taken, and gives up with a conflict', () => {
    expect(resolveJob(CMD, null, view({ isNameTaken: (name) => name !== '/gen-3' }), DEFAULTS).spec.name).toBe(
      '/gen-3',
    );
    const all = admit(CMD, null, view({ isNameTaken: () => true }), DEFAULTS);
    expect(all).toEqual({
      ok: false,
      refusal: {
        code: 'conflict',
        message: 'name: could not generate an unused job name',
        hint: 'give the job a name with --name',
      },
    });
  });
});

describe("a task caller's children", () => {
  it("run as the caller's user with its env under their own; IRIS_ variables are not inherited", () => {
    const { spec } = resolve({ ...CMD, name: 'eval', env: { SHARED: 'child', EXTRA: '1' } }, CALLER);
    expect(spec.user).toBe('alice');
    expect(spec.env).toEqual({ DATA: '/data', SHARED: 'child', EXTRA: '1' });
  });

  it('may name their own user but no other', () => {
    expect(resolve({ ...CMD, user: 'alice' }, CALLER).spec.user).toBe('alice');
    const error = refused({ ...CMD, user: 'mallory' }, CALLER);
    expect([error.code, error.message]).toEqual([
      'forbidden',
      'user "mallory": only the cluster\'s owner may submit for another user; a task\'s children run as its own ' +
        'user "alice"',
    ]);
  });

  it('the owner (no caller) may submit for another user: the job records who submitted it for whom', () => {
    expect(resolve({ ...CMD, user: 'erin' }).spec).toMatchObject({ user: 'erin', submitter: 'bob' });
    expect(resolve({ ...CMD, user: 'bob' }).spec.submitter).toBeUndefined();
    expect(resolve({ ...CMD, user: 'alice' }, CALLER).spec.submitter).toBeUndefined();
  });

  it("inherit the caller job's container user and network, and may not ask for root or host beyond it", () => {
    const plainCaller: TaskCaller = {
      ...CALLER,
      isolation: { image: null, user: null, network: null, privileged: false },
    };
    expect(resolve({ ...CMD, userInContainer: '1000:1000', network: 'bridge' }, plainCaller).spec).toMatchObject({
      containerUser: '1000:1000',
      network: 'bridge',
    });
    for (const user of ['0', 'root', '0:0', 'root:root']) {
      const error = refused({ ...CMD, userInContainer: user }, plainCaller);
      expect([error.code, error.message]).toEqual([
        'forbidden',
        `userInContainer "${user}": a task may not start root containers`,
      ]);
    }
    expect(refused({ ...CMD, network: 'host' }, CALLER).code).toBe('forbidden');
    const rootHost: TaskCaller = {
      ...CALLER,
      isolation: { image: null, user: '0:0', network: 'host', privileged: false },
    };
    expect(resolve({ ...CMD, userInContainer: '0:0', network: 'host' }, rootHost).spec).toMatchObject({
      containerUser: '0:0',
      network: 'host',
    });
    expect(resolve(CMD, rootHost).spec).toMatchObject({ containerUser: '0:0', network: 'host' });
    expect(refused({ ...CMD, userInContainer: 'root' }, rootHost).code).toBe('forbidden');
  });

  it('the owner may ask for a root container and host networking; bad values are invalid', () => {
    expect(resolve({ ...CMD, userInContainer: '0', network: 'host' }).spec).toMatchObject({
      containerUser: '0',
      network: 'host',
    });
    expect(resolve(CMD).spec.containerUser).toBeUndefined();
    expect(refused({ ...CMD, userInContainer: 'a b' }).code).toBe('invalid_argument');
    expect(refused({ ...CMD, network: 'none' }).code).toBe('invalid_argument');
  });

  it('without a caller nothing is inherited', () => {
    expect(resolve({ ...CMD, env: { A: '1' } }).spec).toMatchObject({ user: 'bob', env: { A: '1' } });
  });
});

describe('TPU slices', () => {
  it.each([
    ['v4-8', undefined, 1, null],
    ['v6e-8', 3, 3, null],
    ['v5litepod-16', undefined, 4, 'tpu-name'],
    ['v4-32', 4, 4, 'tpu-name'],
    ['v6e-64', undefined, 16, 'tpu-name'],
  ] as const)('%s with replicas %j -> %i tasks, coschedule %j', (tpu, replicas, tasks, coschedule) => {
    expect(resolve({ ...CMD, tpu, replicas }).spec).toMatchObject({
      replicas: tasks,
      coschedule,
      resources: { device: { type: 'tpu', variant: tpu } },
    });
  });

  it('refuses replicas other than the hosts of a multi-host variant', () => {
    expect(refused({ ...CMD, tpu: 'v5litepod-16', replicas: 8 }).message).toBe(
      'replicas: v5litepod-16 has 4 hosts; --replicas 8 would need a slice of 8 hosts',
    );
  });
});

describe('defaults', () => {
  const CONFIG: Partial<AdmissionDefaults> = { timeLimitMs: 3_600_000, maxPreemptions: 3, user: 'carol', cwd: '/srv' };

  it('applies every default a request leaves out', () => {
    expect(resolve(CMD, null, CONFIG).spec).toEqual({
      name: '/gen-1',
      user: 'carol',
      command: CMD.command,
      env: {},
      cwd: '/srv',
      image: null,
      replicas: 1,
      resources: { cpuMillis: 1000, memoryBytes: 256 * 1024 ** 2, device: null },
      constraints: [],
      coschedule: null,
      maxRetries: 0,
      maxTaskFailures: 0,
      maxPreemptions: 3,
      timeoutMs: 3_600_000,
      defaultTimeLimit: true,
      schedulingTimeoutMs: null,
      band: 'interactive',
    });
  });

  it(
    "the cluster's retry-backoff is the backoff of a job that gives none; a cap needs a backoff and may not be " +
      'below it',
    () => {
      expect(resolve(CMD, null, { retryBackoffMs: 10_000 }).spec).toMatchObject({ retryBackoffMs: 10_000 });
      expect(resolve(CMD).spec.retryBackoffMs).toBeUndefined();
      expect(refused({ ...CMD, retryBackoffMax: '5s' }).message).toBe('retryBackoffMax: a cap without a retry backoff');
      expect(refused({ ...CMD, retryBackoff: '10s', retryBackoffMax: '5s' }).message).toBe(
        'retryBackoffMax: "5s" is shorter than the backoff itself',
      );
      expect(refused({ ...CMD, retryBackoff: '0s' }).message).toMatch(/^retryBackoff: must be longer than 0/);
    },
  );

  it("a default image runs the job in a container in the image's own directory, or in the --cwd given", () => {
    // The CLI sends the submit directory as `workspace` and `cwd` only for --cwd (it used to send
    // its directory as `cwd`, which a container dropped); a container honours a cwd it is given.
    expect(resolve(CMD, null, { image: 'python:3.12' }).spec).toMatchObject({ image: 'python:3.12', cwd: null });
    expect(resolve({ ...CMD, cwd: '/work' }, null, { image: 'python:3.12' }).spec).toMatchObject({
      image: 'python:3.12',
      cwd: '/work',
    });
  });

  it.each([
    ['maxPreemptions', { maxPreemptions: 0 }, { maxPreemptions: 0 }],
    ['timeLimit', { timeLimit: '10m' }, { timeoutMs: 600_000 }],
    ['timeout', { timeout: '1h30m' }, { timeoutMs: 5_400_000 }],
    ['user', { user: 'dave' }, { user: 'dave' }],
    ['cwd', { cwd: '/elsewhere' }, { cwd: '/elsewhere' }],
    ['image', { image: 'busybox', cwd: '/app' }, { image: 'busybox', cwd: '/app' }],
    [
      'retryBackoff',
      { retryBackoff: '2s', retryBackoffMax: '1m' },
      { retryBackoffMs: 2000, retryBackoffMaxMs: 60_000 },
    ],
  ] as const)("the request's own %s wins over the default", (field, own, expected) => {
    expect(
      resolve({ ...CMD, ...own }, null, { ...CONFIG, image: field === 'image' ? 'python:3.12' : null }).spec,
    ).toMatchObject(expected);
  });
});

describe('cluster checks', () => {
  it('refuses a job that can never run, with the reason', () => {
    const answer = admit({ ...CMD, name: 'big', cpu: 16 }, null, view(), DEFAULTS);
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.refusal.code).toBe('unsatisfiable');
    expect(answer.refusal.message).toMatch(
      /^job \/big can never run on this cluster: need 16 CPU, largest worker has 4/,
    );
    expect(answer.refusal.hint).toBe('see the workers with `iris workers`');
  });

  it.each([
    [
      { tpu: 'v5litepod-16' },
      'declare a TPU slice under `slices:` in /p/.irisrc.yaml, e.g. `slices: [{ name: slice-a, tpu: v5litepod-16 }]`',
    ],
    [
      { gpu: '2' },
      'declare a GPU worker under `workers:` in /p/.irisrc.yaml, e.g. `workers: [{ name: gpu-0, gpu: { count: 2 } }]`',
    ],
    [
      { gpu: 'H100x8' },
      'declare a GPU worker under `workers:` in /p/.irisrc.yaml, e.g. ' +
        '`workers: [{ name: gpu-0, gpu: { variant: H100, count: 8 } }]`',
    ],
  ])('a device no worker has (%j): the hint says where to declare it', (device, hint) => {
    const answer = admit({ ...CMD, ...device }, null, view(), { ...DEFAULTS, configPlace: '/p/.irisrc.yaml' });
    expect(answer.ok ? null : answer.refusal.code).toBe('unsatisfiable');
    expect(answer.ok ? null : answer.refusal.hint).toMatch(
      new RegExp(`^${hint.replace(/[[\]{}().*+?^$|]/g, '\\$&')}; `),
    );
  });

  it('a device some worker has, or no config file to declare it in: the hint stays `iris workers`', () => {
    const gpu: WorkerView = { ...worker('g', 8), device: { type: 'gpu', variant: 'A100', count: 1 } };
    const tooMany = admit({ ...CMD, gpu: 'A100x4' }, null, view({ workers: [gpu] }), {
      ...DEFAULTS,
      configPlace: '/p/.irisrc.yaml',
    });
    expect(tooMany.ok ? null : tooMany.refusal.hint).toBe('see the workers with `iris workers`');
    const noFile = admit({ ...CMD, tpu: 'v6e-8' }, null, view(), DEFAULTS);
    expect(noFile.ok ? null : noFile.refusal.hint).toBe('see the workers with `iris workers`');
  });

  it('does not name a generated job that was never created when refusing it', () => {
    const answer = admit({ ...CMD, cpu: 16 }, null, view(), DEFAULTS);
    expect(answer.ok ? null : answer.refusal.message).toMatch(/^the job can never run on this cluster: need 16 CPU/);
    expect(answer.ok ? null : answer.refusal.message).not.toMatch(/gen-/);
  });

  it('gpuMemory: per device on the gpu request; refused at submit when no GPU of the cluster has that much', () => {
    const GiB = 1024 ** 3;
    const gpu = (id: string, memoryGiB: number): WorkerView => ({
      ...worker(id, 8),
      device: { type: 'gpu', variant: 'H100', count: 8, memoryBytes: memoryGiB * GiB },
    });
    const cluster = view({ workers: [gpu('small', 24), gpu('big', 80)] });
    const ok = admit({ ...CMD, name: 'ft', gpu: 'H100', gpuMemory: '40GiB' }, null, cluster, DEFAULTS);
    expect(ok.ok && ok.spec.resources.device).toEqual({
      type: 'gpu',
      variant: 'H100',
      count: 1,
      memoryBytes: 40 * GiB,
    });
    const big = admit({ ...CMD, name: 'huge', gpu: '1', gpuMemory: '200GiB' }, null, cluster, DEFAULTS);
    expect(big.ok ? null : big.refusal).toEqual({
      code: 'unsatisfiable',
      message: 'job /huge can never run on this cluster: need 200GiB gpu memory, largest gpu worker has 80GiB',
      hint: 'see the workers with `iris workers`',
    });
  });

  it.each([
    [{ gpuMemory: '40GiB' }, 'gpuMemory: applies only to a gpu request, got "40GiB" without one'],
    [{ tpu: 'v4-8', gpuMemory: 1 }, 'gpuMemory: applies only to a gpu request, got 1 without one'],
    [{ gpu: '1', gpuMemory: 'lots' }, 'gpuMemory: invalid gpu memory "lots": expected a size such as 512M, 4GiB or 2G'],
    [{ gpu: '1', gpuMemory: 0 }, 'gpuMemory: invalid gpu memory 0'],
  ] as const)('refuses gpuMemory %j', (fields, message) => {
    const error = refused({ ...CMD, ...fields });
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toBe(message);
  });

  it('refuses a gang larger than any group of workers', () => {
    const workers = [worker('a', 4, { rack: 'r1' }), worker('b', 4, { rack: 'r1' }), worker('c', 4, { rack: 'r2' })];
    const answer = admit({ ...CMD, replicas: 3, coschedule: 'rack' }, null, view({ workers }), DEFAULTS);
    expect(answer.ok ? null : answer.refusal.message).toMatch(/can never run on this cluster: .*rack/);
  });

  it("refuses a job over its user's pending-task quota, and admits one within it", () => {
    const quota: Quota = {
      maxRunningCpuMillis: null,
      maxRunningMemoryBytes: null,
      maxRunningAccelerators: null,
      maxPendingTasks: 5,
      weight: 1,
      hard: false,
    };
    const cluster = view({ quotas: new Map([['bob', quota]]), pendingTasks: (user) => (user === 'bob' ? 4 : 0) });
    expect(admit({ ...CMD, replicas: 2 }, null, cluster, DEFAULTS)).toEqual({
      ok: false,
      refusal: {
        code: 'quota_exceeded',
        message: 'user bob has 4 pending tasks, this job adds 2, limit is 5',
        hint: 'wait for some of your pending tasks to start, or cancel some',
      },
    });
    expect(admit({ ...CMD, replicas: 1 }, null, cluster, DEFAULTS).ok).toBe(true);
    expect(admit({ ...CMD, replicas: 2, user: 'erin' }, null, cluster, DEFAULTS).ok).toBe(true);
    // Submitted by bob for erin: counted against erin, the effective user.
    const erinQuota = view({ quotas: new Map([['erin', quota]]), pendingTasks: (user) => (user === 'erin' ? 5 : 0) });
    expect(admit({ ...CMD, user: 'erin' }, null, erinQuota, DEFAULTS)).toMatchObject({
      ok: false,
      refusal: { code: 'quota_exceeded' },
    });
    expect(admit(CMD, null, erinQuota, DEFAULTS).ok).toBe(true);
  });

  it("refuses a job a task (a gang: the whole gang) of which is bigger than its user's hard quota", () => {
    const hard: Quota = {
      maxRunningCpuMillis: 2000,
      maxRunningMemoryBytes: null,
      maxRunningAccelerators: null,
      maxPendingTasks: null,
      weight: 1,
      hard: true,
    };
    const cluster = view({ quotas: new Map([['bob', hard]]) });
    expect(admit({ ...CMD, cpu: '3' }, null, cluster, DEFAULTS)).toMatchObject({
      ok: false,
      refusal: {
        code: 'unsatisfiable',
        message: "the job can never run: needs 3 CPU, more than bob's hard cpu quota 2",
      },
    });
    // Many tasks within the quota each are admitted (they wait for each other); a gang of them is not.
    expect(admit({ ...CMD, cpu: '1', replicas: 4 }, null, cluster, DEFAULTS).ok).toBe(true);
    expect(
      admit(
        { ...CMD, cpu: '1', replicas: 3, coschedule: 'rack' },
        null,
        view({
          quotas: new Map([['bob', hard]]),
          workers: [worker('a', 4, { rack: 'r' }), worker('b', 4, { rack: 'r' }), worker('c', 4, { rack: 'r' })],
        }),
        DEFAULTS,
      ),
    ).toMatchObject({
      ok: false,
      refusal: { code: 'unsatisfiable', message: /needs 3 CPU, more than bob's hard cpu quota 2/ },
    });
    // A soft quota is a share: a bigger task may borrow.
    const soft = view({ quotas: new Map([['bob', { ...hard, hard: false }]]) });
    expect(admit({ ...CMD, cpu: '3' }, null, soft, DEFAULTS).ok).toBe(true);
  });

  it('turns a refused value into a refusal, not a throw', () => {
    expect(admit({ ...CMD, cpu: 'lots' }, null, view(), DEFAULTS)).toMatchObject({
      ok: false,
      refusal: { code: 'invalid_argument' },
    });
  });
});

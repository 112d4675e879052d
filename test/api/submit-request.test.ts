import { describe, expect, it } from 'vitest';
import { parseSubmitRequest } from '../../src/api/submit-request.js';
import { resolveJob } from '../../src/cluster/admission/index.js';
import type { TaskCaller } from '../../src/model/caller.js';
import type { SubmitRequest } from '../../src/api/types.js';
import { refusal } from '../helpers/refusal.js';

interface SubmitContext {
  caller: TaskCaller | null;
  defaultUser: string;
  defaultCwd: string;
  generateName: () => string;
  isNameTaken?: (name: string) => boolean;
}

/**
 * A wire body through both steps the server takes: its shape (src/api/submit-request.ts), then
 * admission's rules (src/cluster/admission) with the built-in defaults and no cluster config.
 */
function toJobSpec(req: SubmitRequest, context: SubmitContext) {
  const names = { generateName: context.generateName, isNameTaken: context.isNameTaken ?? (() => false) };
  const defaults = {
    user: context.defaultUser,
    cwd: context.defaultCwd,
    timeLimitMs: null,
    maxPreemptions: 100,
    image: null,
  };
  return resolveJob(parseSubmitRequest(req), context.caller, names, defaults);
}

const CALLER: TaskCaller = {
  task: '/train/task-0',
  job: '/train',
  attempt: 0,
  user: 'alice',
  env: { DATA: '/data', SHARED: 'parent', IRIS_TASK_ID: '/train/task-0' },
  rootSubmittedAt: 1000,
};

function ctx(overrides: Partial<SubmitContext> = {}): SubmitContext {
  let n = 0;
  return { caller: null, defaultUser: 'bob', defaultCwd: '/home/bob', generateName: () => `gen-${++n}`, ...overrides };
}

const fail = (req: unknown, context: SubmitContext = ctx()) => refusal(() => toJobSpec(req as SubmitRequest, context));

const CMD = { command: ['python', 'train.py'] };

describe('toJobSpec defaults', () => {
  it('fills every default', () => {
    const { spec, generated } = toJobSpec({ name: 'train', ...CMD }, ctx());
    expect(generated).toBe(false);
    expect(spec).toEqual({
      name: '/train',
      user: 'bob',
      command: ['python', 'train.py'],
      env: {},
      cwd: '/home/bob',
      image: null,
      replicas: 1,
      resources: { cpuMillis: 1000, memoryBytes: 256 * 1024 ** 2, device: null },
      constraints: [],
      coschedule: null,
      maxRetries: 0,
      maxTaskFailures: 0,
      maxPreemptions: 100,
      timeoutMs: null,
      defaultTimeLimit: true,
      schedulingTimeoutMs: null,
      band: 'interactive',
    });
  });

  it('parses every field', () => {
    const { spec } = toJobSpec(
      {
        name: '/exp/run1',
        command: ['./run.sh'],
        replicas: 4,
        cpu: '0.5',
        memory: '4GiB',
        gpu: 'H100x8',
        env: { A: '1', _b: '' },
        constraints: ['region=us', 'zone in (a,b)'],
        coschedule: 'tpu-name',
        maxRetries: 3,
        maxTaskFailures: 2,
        maxPreemptions: 0,
        timeout: '1h30m',
        schedulingTimeout: '10m',
        user: 'carol',
        cwd: '/srv',
      },
      ctx(),
    );
    expect(spec.name).toBe('/exp/run1');
    expect(spec.replicas).toBe(4);
    expect(spec.resources).toEqual({
      cpuMillis: 500,
      memoryBytes: 4 * 1024 ** 3,
      device: { type: 'gpu', variant: 'H100', count: 8 },
    });
    expect(spec.env).toEqual({ A: '1', _b: '' });
    expect(spec.constraints).toEqual([
      { key: 'region', op: 'eq', values: ['us'] },
      { key: 'zone', op: 'in', values: ['a', 'b'] },
    ]);
    expect(spec.coschedule).toBe('tpu-name');
    expect([spec.maxRetries, spec.maxTaskFailures, spec.maxPreemptions]).toEqual([3, 2, 0]);
    expect(spec.timeoutMs).toBe(5_400_000);
    expect(spec.schedulingTimeoutMs).toBe(600_000);
    expect(spec.user).toBe('carol');
    expect(spec.cwd).toBe('/srv');
  });

  it('maps a TPU variant to chips per host; single-host variants keep replicas as given', () => {
    expect(toJobSpec({ ...CMD, tpu: 'V4-8', replicas: 2 }, ctx()).spec).toMatchObject({
      replicas: 2,
      coschedule: null,
      resources: { device: { type: 'tpu', variant: 'v4-8', chips: 4 } },
    });
    expect(toJobSpec({ ...CMD, tpu: 'v6e-8' }, ctx()).spec).toMatchObject({
      replicas: 1,
      coschedule: null,
      resources: { device: { chips: 8 } },
    });
  });

  it.each([
    ['v5litepod-16', 4, 4],
    ['v4-32', 4, 4],
    ['v5p-16', 2, 4],
    ['v6e-64', 16, 4],
  ])('a multi-host variant %s: replicas default to its %i hosts, co-scheduled by tpu-name', (tpu, hosts, chips) => {
    const { spec } = toJobSpec({ ...CMD, tpu }, ctx());
    expect(spec).toMatchObject({
      replicas: hosts,
      coschedule: 'tpu-name',
      resources: { device: { type: 'tpu', variant: tpu, chips } },
    });
    // giving exactly the hosts, or coschedule tpu-name, is the same job
    expect(toJobSpec({ ...CMD, tpu, replicas: hosts, coschedule: 'tpu-name' }, ctx()).spec).toEqual(spec);
  });

  it('refuses replicas that do not match the hosts of a multi-host variant, with the reason', () => {
    const more = fail({ ...CMD, tpu: 'v5litepod-16', replicas: 8 });
    expect(more.message).toBe('replicas: v5litepod-16 has 4 hosts; --replicas 8 would need a slice of 8 hosts');
    expect(more.hint).toBe(
      'a multi-host TPU job runs one task per host: leave --replicas out or give 4, or use a variant with 8 hosts ' +
        'such as v5litepod-32',
    );
    const fewer = fail({ ...CMD, tpu: 'v5litepod-16', replicas: 2 });
    expect(fewer.message).toBe(
      'replicas: v5litepod-16 has 4 hosts and a multi-host TPU job runs one task on each; --replicas 2 would leave ' +
        '2 idle',
    );
    // no v5e variant has 2 hosts, so no other variant is suggested
    expect(fewer.hint).toBe('a multi-host TPU job runs one task per host: leave --replicas out or give 4');
    expect(fail({ ...CMD, tpu: 'v4-32', replicas: 2 }).hint).toMatch(/such as v4-16$/);
  });

  it('refuses a multi-host TPU job co-scheduled by another attribute', () => {
    expect(fail({ ...CMD, tpu: 'v4-16', coschedule: 'rack' }).message).toBe(
      'coschedule: a multi-host TPU job (v4-16) is co-scheduled by tpu-name, got "rack"',
    );
  });

  it('accepts numeric cpu and memory and treats null as absent', () => {
    const { spec } = toJobSpec(
      { ...CMD, cpu: 2, memory: 1048576, gpu: null, timeout: null } as unknown as SubmitRequest,
      ctx(),
    );
    expect(spec.resources).toEqual({ cpuMillis: 2000, memoryBytes: 1048576, device: null });
    expect(spec.timeoutMs).toBeNull();
  });

  it('generates a name when none is given', () => {
    const { spec, generated } = toJobSpec({ ...CMD }, ctx());
    expect(spec.name).toBe('/gen-1');
    expect(generated).toBe(true);
  });

  it('retries generated names that are taken', () => {
    const { spec } = toJobSpec({ ...CMD }, ctx({ isNameTaken: (name) => name !== '/gen-3' }));
    expect(spec.name).toBe('/gen-3');
    const error = fail(CMD, ctx({ isNameTaken: () => true }));
    expect(error.code).toBe('conflict');
    expect(error.message).toMatch(/name/);
  });
});

describe('toJobSpec validation table', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['non-object body', ['x'], /JSON object/],
    ['unknown field', { ...CMD, foo: 1 }, /unknown field "foo"/],
    ['missing command', {}, /command is required/],
    ['empty command', { command: [] }, /command must be a non-empty array/],
    ['string command', { command: 'python x.py' }, /command must be a non-empty array/],
    ['non-string arg', { command: ['python', 3] }, /command\[1\] must be a string/],
    ['empty program', { command: [''] }, /command\[0\]/],
    ['bad name', { ...CMD, name: 'a b' }, /name "a b"/],
    ['task-like name', { ...CMD, name: 'task-3' }, /reserved for task names/],
    ['double slash', { ...CMD, name: 'a//b' }, /name/],
    ['blank name', { ...CMD, name: '   ' }, /name may not be blank/],
    ['non-string name', { ...CMD, name: 5 }, /name must be a string/],
    ['replicas zero', { ...CMD, replicas: 0 }, /replicas must be between 1 and 10000/],
    ['replicas too many', { ...CMD, replicas: 10001 }, /replicas must be between 1 and 10000/],
    ['replicas fraction', { ...CMD, replicas: 1.5 }, /replicas must be an integer/],
    ['replicas string', { ...CMD, replicas: '2' }, /replicas must be an integer/],
    ['cpu negative', { ...CMD, cpu: -1 }, /cpu/],
    ['cpu word', { ...CMD, cpu: 'lots' }, /cpu/],
    ['cpu object', { ...CMD, cpu: {} }, /cpu must be/],
    ['memory bad', { ...CMD, memory: '12 parsecs' }, /memory/],
    ['memory bool', { ...CMD, memory: true }, /memory must be/],
    ['gpu bad', { ...CMD, gpu: 'H100x0' }, /gpu/],
    ['gpu number', { ...CMD, gpu: 8 }, /gpu must be a string/],
    ['tpu unknown', { ...CMD, tpu: 'v9-8' }, /TPU variant "v9-8"/],
    ['gpu and tpu', { ...CMD, gpu: '1', tpu: 'v4-8' }, /gpu and tpu cannot be requested together/],
    ['env not object', { ...CMD, env: ['A=1'] }, /env must be an object/],
    ['env bad key', { ...CMD, env: { '1A': 'x' } }, /env: invalid variable name "1A"/],
    ['env key with dash', { ...CMD, env: { 'A-B': 'x' } }, /env: invalid variable name "A-B"/],
    ['env non-string value', { ...CMD, env: { A: 1 } }, /env\.A must be a string/],
    [
      'env reserved',
      { ...CMD, env: { IRIS_TASK_ID: 'x' } },
      /env: "IRIS_TASK_ID" is not allowed: IRIS_ variables are reserved/,
    ],
    ['env reserved lowercase', { ...CMD, env: { iris_home: 'x' } }, /IRIS_ variables are reserved/],
    ['constraints not array', { ...CMD, constraints: 'a=b' }, /constraints must be an array/],
    ['constraint not string', { ...CMD, constraints: [1] }, /constraints\[0\] must be a string/],
    ['constraint bad', { ...CMD, constraints: ['=x'] }, /invalid constraint "=x"/],
    ['constraint empty in', { ...CMD, constraints: ['zone in ()'] }, /constraint/],
    ['coschedule bad', { ...CMD, coschedule: 'has space' }, /coschedule: invalid attribute name/],
    ['coschedule number', { ...CMD, coschedule: 1 }, /coschedule must be a string/],
    ['maxRetries negative', { ...CMD, maxRetries: -1 }, /maxRetries must be 0 or more/],
    ['maxRetries fraction', { ...CMD, maxRetries: 0.5 }, /maxRetries must be an integer/],
    ['maxTaskFailures negative', { ...CMD, maxTaskFailures: -2 }, /maxTaskFailures must be 0 or more/],
    ['maxPreemptions string', { ...CMD, maxPreemptions: 'many' }, /maxPreemptions must be an integer/],
    ['timeout bad', { ...CMD, timeout: 'forever' }, /timeout: invalid duration "forever"/],
    ['timeout zero', { ...CMD, timeout: '0s' }, /timeout: must be longer than 0/],
    ['timeout object', { ...CMD, timeout: {} }, /timeout must be a duration/],
    ['schedulingTimeout bad', { ...CMD, schedulingTimeout: '5 minutes' }, /schedulingTimeout: invalid duration/],
    ['user empty', { ...CMD, user: '' }, /^invalid user name ""$/],
    ['user with space', { ...CMD, user: 'a b' }, /^invalid user name "a b"$/],
    ['user number', { ...CMD, user: 7 }, /user must be a string/],
    ['cwd relative', { ...CMD, cwd: 'src' }, /cwd must be an absolute path/],
    ['cwd number', { ...CMD, cwd: 1 }, /cwd must be a string/],
  ];
  it.each(cases)('%s', (_label, req, message) => {
    const error = fail(req);
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toMatch(message);
  });

  it('suggests the known field closest to an unknown one', () => {
    const error = fail({ ...CMD, maxRetry: 2 });
    expect(error.message).toBe('unknown field "maxRetry": did you mean "maxRetries"?');
    expect(error.hint).toMatch(/^known fields: name, command, replicas/);
    expect(fail({ ...CMD, colour: 'blue' }).message).toBe('unknown field "colour"');
    // a misspelt key is reported before the field it leaves missing
    expect(fail({ comand: ['x'] }).message).toBe('unknown field "comand": did you mean "command"?');
  });

  it('words shape errors with the field and the value it got', () => {
    expect(fail(['x']).message).toBe('the submit request must be a JSON object, got an array');
    expect(fail({}).message).toBe('command is required: a non-empty array of strings such as ["python", "train.py"]');
    expect(fail({ command: [] }).message).toBe('command must be a non-empty array of strings, got an array');
    expect(fail({ command: ['python', 3] }).message).toBe('command[1] must be a string, got 3');
    expect(fail({ command: [' '] }).message).toBe('command[0] (the program) may not be empty');
    expect(fail({ ...CMD, replicas: 0 }).message).toBe('replicas must be between 1 and 10000, got 0');
    expect(fail({ ...CMD, replicas: '2' }).message).toBe('replicas must be an integer, got "2"');
    expect(fail({ ...CMD, maxRetries: -1 }).message).toBe('maxRetries must be 0 or more, got -1');
    expect(fail({ ...CMD, cpu: {} }).message).toBe('cpu must be a number of cores such as 0.5 or "2", got an object');
    expect(fail({ ...CMD, env: { A: 1 } }).message).toBe('env.A must be a string, got 1');
    expect(fail({ ...CMD, timeLimit: [] }).message).toBe(
      'timeLimit must be a duration string such as "10m", got an array',
    );
  });

  it('keeps the parser hint', () => {
    expect(fail({ ...CMD, tpu: 'v9-8' }).hint).toMatch(/known variants/);
    expect(fail({ ...CMD, foo: 1 }).hint).toMatch(/known fields/);
  });
});

describe('toJobSpec with a task caller', () => {
  const withCaller = ctx({ caller: CALLER });

  it('puts a relative name under the caller job', () => {
    expect(toJobSpec({ name: 'eval', ...CMD }, withCaller)).toMatchObject({
      spec: { name: '/train/eval' },
      generated: false,
    });
    expect(toJobSpec({ name: 'eval/deep', ...CMD }, withCaller).spec.name).toBe('/train/eval/deep');
  });

  it('generates a child name under the caller job', () => {
    expect(toJobSpec({ ...CMD }, ctx({ caller: CALLER }))).toMatchObject({
      spec: { name: '/train/gen-1' },
      generated: true,
    });
  });

  it('accepts an absolute name strictly under the caller job', () => {
    expect(toJobSpec({ name: '/train/eval', ...CMD }, withCaller).spec.name).toBe('/train/eval');
  });

  it.each(['/train', '/other', '/trainer/x', '/'])('refuses the absolute name %s', (name) => {
    const error = fail({ name, ...CMD }, withCaller);
    if (name === '/') {
      expect(error.code).toBe('invalid_argument');
      return;
    }
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('a task may only create children under its own job /train');
  });

  it('inherits user and env, request env wins, IRIS_ vars are not inherited', () => {
    const { spec } = toJobSpec({ name: 'eval', ...CMD, env: { SHARED: 'child', EXTRA: '1' } }, withCaller);
    expect(spec.user).toBe('alice');
    expect(spec.env).toEqual({ DATA: '/data', SHARED: 'child', EXTRA: '1' });
  });

  it('refuses another user for a child', () => {
    const error = fail({ ...CMD, user: 'mallory' }, withCaller);
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/user "mallory"/);
    expect(toJobSpec({ ...CMD, user: 'alice' }, withCaller).spec.user).toBe('alice');
  });

  it('refuses reserved env for a child too', () => {
    expect(fail({ ...CMD, env: { IRIS_TASK_TOKEN: 'x' } }, withCaller).message).toMatch(/IRIS_ variables are reserved/);
  });

  it('refuses children deeper than the name limit', () => {
    const deep = { ...CALLER, job: '/' + Array.from({ length: 16 }, (_, i) => `l${i}`).join('/') };
    expect(fail({ name: 'x', ...CMD }, ctx({ caller: deep })).message).toMatch(/deeper than 16/);
  });
});

/**
 * The refusals of issue 28 §6 as tables: a NUL character in any string of a submit or pipeline
 * request (every field of the schema is tried, so a string field added later without the rule
 * fails here); every submit refusal carries the field it is about; and the CLI names the flag
 * for that field (`--cpu`, `--env LR`, the command's element 1) while a pipeline stage keeps its
 * field path.
 */
import { describe, expect, it } from 'vitest';
import { parseSubmitRequest, SubmitRequestSchema } from '../../src/api/submit-request.js';
import { parsePipelineRequest } from '../../src/api/pipeline-request.js';
import { admit, type AdmissionDefaults, type ClusterView } from '../../src/cluster/admission/index.js';
import { admitPipeline } from '../../src/cluster/admission/pipeline.js';
import type { TaskCaller } from '../../src/model/caller.js';
import { IrisError } from '../../src/model/errors.js';
import { NUL_REFUSAL } from '../../src/model/nul.js';
import { flagOfField, withFlagNames } from '../../src/ui/submit-flags.js';
import { refusal } from '../helpers/refusal.js';

const CMD = { command: ['true'] };
const DEFAULTS: AdmissionDefaults = {
  user: 'bob',
  cwd: '/home/bob',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
};
const CALLER: TaskCaller = {
  task: '/train/task-0',
  job: '/train',
  attempt: 0,
  user: 'alice',
  env: {},
  rootSubmittedAt: 1000,
};

function view(): ClusterView {
  return {
    workers: [
      {
        id: 'w0',
        device: { type: 'cpu', variant: null, count: 0 },
        attributes: {},
        capacity: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3 },
        free: { cpuMillis: 4000, memoryBytes: 8 * 1024 ** 3, devices: [] },
        schedulable: true,
      },
    ],
    quotas: new Map(),
    pendingTasks: () => 0,
    isNameTaken: () => false,
    generateName: () => 'gen-1',
    jobState: (name) => (name === '/prep' ? 'RUNNING' : undefined),
    dependenciesOf: () => [],
  };
}

/** The shape check, then admission, as the server does; the refusal as an IrisError (with its field). */
function submitted(body: unknown, caller: TaskCaller | null = null): IrisError {
  return refusal(() => {
    const admission = admit(parseSubmitRequest(body), caller, view(), DEFAULTS);
    if (!admission.ok)
      throw new IrisError(
        admission.refusal.code,
        admission.refusal.message,
        admission.refusal.hint,
        admission.refusal.field,
      );
  });
}

describe('a NUL character is refused in every string of a request', () => {
  // What each field takes: a string, a list of strings, or an object of strings.
  const withNul = (field: string): unknown[] =>
    ['a\u0000', ['a\u0000'], { A: 'a\u0000' }, { 'A\u0000': 'x' }].map((v) => ({ ...CMD, [field]: v }));
  // Numbers, and enums (category, runtime, priority), which refuse every text but their own values, a NUL included.
  const NOT_TEXT = new Set([
    'replicas',
    'maxRetries',
    'maxTaskFailures',
    'maxPreemptions',
    'category',
    'priority',
    'runtime',
    'mountWorkspace',
  ]);

  it.each(Object.keys(SubmitRequestSchema.shape))('%s', (field) => {
    const refusals = withNul(field).map((body) => refusal(() => parseSubmitRequest(body)));
    const nul = refusals.filter((e) => e.message.endsWith(NUL_REFUSAL));
    if (NOT_TEXT.has(field)) {
      expect(nul).toEqual([]);
      return;
    }
    expect(nul.length).toBeGreaterThan(0);
    for (const error of nul) {
      expect(error.code).toBe('invalid_argument');
      expect(error.field?.startsWith(field)).toBe(true);
      expect(error.message).toBe(`${error.field} ${NUL_REFUSAL}`);
      // The value itself is never echoed: a NUL on a terminal or in a log is no help.
      expect(error.message).not.toContain('\u0000');
    }
  });

  it.each([
    [{ command: ['echo', 'a\u0000b'] }, 'command[1]'],
    [{ command: ['ec\u0000ho'] }, 'command[0]'],
    [{ ...CMD, env: { LR: '0.1\u0000' } }, 'env.LR'],
    [{ ...CMD, env: { 'LR\u0000': '1' } }, 'env["LR\\u0000"]'],
    [{ ...CMD, name: 'a\u0000' }, 'name'],
    [{ ...CMD, cwd: '/x\u0000' }, 'cwd'],
    [{ ...CMD, after: ['prep\u0000'] }, 'after[0]'],
    [{ ...CMD, cpu: '1\u0000' }, 'cpu'],
  ])('%j is refused naming %s', (body, field) => {
    const error = refusal(() => parseSubmitRequest(body));
    expect(error).toMatchObject({ code: 'invalid_argument', field, message: `${field} ${NUL_REFUSAL}` });
  });

  it("in a pipeline: a stage's field and a stage's name", () => {
    const stage = (over: object) => ({ name: 'p', stages: { train: { ...CMD, ...over } } });
    expect(refusal(() => parsePipelineRequest(stage({ command: ['x', 'y\u0000'] })))).toMatchObject({
      field: 'stages.train.command[1]',
    });
    expect(refusal(() => parsePipelineRequest(stage({ needs: ['a\u0000'] })))).toMatchObject({
      field: 'stages.train.needs[0]',
    });
    expect(refusal(() => parsePipelineRequest({ name: 'p\u0000', stages: {} }))).toMatchObject({ field: 'name' });
    const key = refusal(() => parsePipelineRequest({ name: 'p', stages: { 'tr\u0000': CMD } }));
    expect(key.message).toBe(`stages["tr\\u0000"] ${NUL_REFUSAL}`);
  });
});

describe('every submit refusal names its field', () => {
  it.each([
    [
      { ...CMD, cpu: '0x10' },
      'cpu',
      'invalid_argument',
      'invalid cpu "0x10": expected a positive decimal number of cores such as 0.5 or 2',
    ],
    [{ ...CMD, cpu: 0 }, 'cpu', 'invalid_argument', /^invalid cpu 0/],
    [{ ...CMD, memory: '0x10' }, 'memory', 'invalid_argument', /^invalid memory "0x10"/],
    [{ ...CMD, gpu: 'H100x0' }, 'gpu', 'invalid_argument', /^invalid gpu "H100x0"/],
    [{ ...CMD, gpuMemory: '4G' }, 'gpuMemory', 'invalid_argument', /^gpuMemory: applies only to a gpu request/],
    [{ ...CMD, tpu: 'v9-8' }, 'tpu', 'invalid_argument', /^unknown TPU variant "v9-8"/],
    [{ ...CMD, env: { '1A': 'x' } }, 'env', 'invalid_argument', /^env: invalid variable name "1A"/],
    [{ ...CMD, env: { IRIS_X: 'x' } }, 'env', 'invalid_argument', /^env: "IRIS_X" is not allowed/],
    [{ ...CMD, constraints: ['ok', '=x'] }, 'constraints[1]', 'invalid_argument', /^invalid constraint "=x"/],
    [{ ...CMD, coschedule: 'a b' }, 'coschedule', 'invalid_argument', /^coschedule: invalid attribute name/],
    [{ ...CMD, uses: ['a b'] }, 'uses', 'invalid_argument', /^invalid uses key "a b"/],
    [{ ...CMD, timeLimit: '5x' }, 'timeLimit', 'invalid_argument', /^timeLimit: invalid duration "5x"/],
    [{ ...CMD, timeLimit: '0s' }, 'timeLimit', 'invalid_argument', /^timeLimit: must be longer than 0/],
    [
      { ...CMD, schedulingTimeout: '0x10' },
      'schedulingTimeout',
      'invalid_argument',
      /^schedulingTimeout: invalid duration "0x10"/,
    ],
    [
      { ...CMD, retryBackoffMax: '1m' },
      'retryBackoffMax',
      'invalid_argument',
      /^retryBackoffMax: a cap without a retry backoff/,
    ],
    [
      { ...CMD, retryBackoff: '1m', retryBackoffMax: '1s' },
      'retryBackoffMax',
      'invalid_argument',
      /^retryBackoffMax: "1s" is shorter/,
    ],
    [{ ...CMD, user: 'a/b' }, 'user', 'invalid_argument', 'invalid user name "a/b"'],
    [{ ...CMD, cwd: 'rel' }, 'cwd', 'invalid_argument', 'cwd must be an absolute path, got "rel"'],
    [{ ...CMD, image: 'UPPER' }, 'image', 'invalid_argument', /^image: invalid image reference "UPPER"/],
    [
      { ...CMD, userInContainer: 'a b' },
      'userInContainer',
      'invalid_argument',
      /^userInContainer: invalid container user/,
    ],
    [{ ...CMD, name: 'a b' }, 'name', 'invalid_argument', /^invalid job name "a b"/],
    [{ ...CMD, name: ' ' }, 'name', 'invalid_argument', 'name may not be blank'],
    [{ ...CMD, after: ['prep:maybe'] }, 'after[0]', 'invalid_argument', /^after\[0\]: unknown condition/],
    [{ ...CMD, after: ['prep', 'nosuch'] }, 'after[1]', 'not_found', 'after[1]: no job /nosuch'],
    [{ ...CMD, tpu: 'v4-16', replicas: 3 }, 'replicas', 'invalid_argument', /^replicas: v4-16 has 2 hosts/],
    [{ ...CMD, replicas: 0 }, 'replicas', 'invalid_argument', 'replicas must be between 1 and 10000, got 0'],
    [{ ...CMD, maxRetries: -1 }, 'maxRetries', 'invalid_argument', 'maxRetries must be 0 or more, got -1'],
  ])('%j: %s', (body, field, code, message) => {
    const error = submitted(body);
    expect(error.field).toBe(field);
    expect(error.code).toBe(code);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  });

  it.each([
    [
      { ...CMD, userInContainer: 'root' },
      'userInContainer',
      'userInContainer "root": a task may not start root containers',
    ],
    [{ ...CMD, network: 'host' }, 'network', /^network "host": a task may not give its children the host network/],
    [{ ...CMD, user: 'mallory' }, 'user', /^user "mallory": only the cluster's owner may submit for another user/],
    [
      { ...CMD, name: '/elsewhere' },
      'name',
      'name "/elsewhere": a task may only create children under its own job /train',
    ],
  ])('from a task, %j is forbidden naming %s', (body, field, message) => {
    const error = submitted(body, CALLER);
    expect(error).toMatchObject({ code: 'forbidden', field });
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  });

  it("a pipeline stage's refusal names its field path under the stage", () => {
    const pipeline = (train: object) =>
      refusal(() => admitPipeline({ name: 'p', stages: { train: { ...CMD, ...train } } }, null, view(), DEFAULTS));
    expect(pipeline({ cpu: '0x10' })).toMatchObject({
      field: 'stages.train.cpu',
      message: 'stages.train.cpu: invalid cpu "0x10": expected a positive decimal number of cores such as 0.5 or 2',
    });
    expect(pipeline({ timeLimit: '0s' })).toMatchObject({
      field: 'stages.train.timeLimit',
      message: 'stages.train.timeLimit: must be longer than 0, got "0s"',
    });
    expect(pipeline({ cwd: 'rel' })).toMatchObject({
      field: 'stages.train.cwd',
      message: 'stages.train.cwd must be an absolute path, got "rel"',
    });
    // Its name comes from its key, not from a field: no field path for it.
    const named = refusal(() => admitPipeline({ name: 'p', stages: { 'task-1': CMD } }, null, view(), DEFAULTS));
    expect(named.field).toBeUndefined();
    expect(named.message).toMatch(/^stages\.task-1: invalid stage name/);
  });
});

describe('the CLI names the flag', () => {
  it.each([
    ['cpu', '--cpu'],
    ['timeLimit', '--time-limit'],
    ['timeout', '--time-limit'],
    ['userInContainer', '--user-in-container'],
    ['gpuMemory', '--gpu-memory'],
    ['constraints[3]', '--constraint'],
    ['after[0]', '--after'],
    ['uses[1]', '--uses'],
    ['env', '--env'],
    ['env.LR', '--env LR'],
    ['cwd', '--cwd'],
    ['name', '--name'],
    ['command[0]', "the command's element 0"],
    ['command[2]', "the command's element 2"],
    ['stages.train.cpu', null],
    ['unknownThing', null],
    ['cpu.x', null],
  ])('%s -> %s', (field, flag) => {
    expect(flagOfField(field)).toBe(flag);
  });

  const thrown = (message: string, field: string, code: 'invalid_argument' | 'forbidden' = 'invalid_argument') =>
    withFlagNames(() => Promise.reject(new IrisError(code, message, 'hint', field)));

  it.each([
    [
      'invalid cpu "0x10": expected a positive decimal number',
      'cpu',
      '--cpu: invalid cpu "0x10": expected a positive decimal number',
    ],
    ['invalid user name "a/b"', 'user', '--user: invalid user name "a/b"'],
    [
      'userInContainer "root": a task may not start root containers',
      'userInContainer',
      '--user-in-container "root": a task may not start root containers',
    ],
    ['schedulingTimeout: invalid duration "5x"', 'schedulingTimeout', '--scheduling-timeout: invalid duration "5x"'],
    ['replicas must be between 1 and 10000, got 0', 'replicas', '--replicas must be between 1 and 10000, got 0'],
    [`command[1] ${NUL_REFUSAL}`, 'command[1]', `the command's element 1 ${NUL_REFUSAL}`],
    [`env.LR ${NUL_REFUSAL}`, 'env.LR', `--env LR ${NUL_REFUSAL}`],
    ['after[1]: no job /nosuch', 'after[1]', '--after: no job /nosuch'],
    [
      'user "mallory": only the cluster\'s owner may submit for another user',
      'user',
      '--user "mallory": only the cluster\'s owner may submit for another user',
    ],
  ])('%s -> %s', async (message, field, shown) => {
    await expect(thrown(message, field)).rejects.toMatchObject({ message: shown, hint: 'hint', field });
  });

  it('keeps the exit code of the refusal (2 invalid, 4 forbidden)', async () => {
    await expect(thrown('cpu must be a number', 'cpu')).rejects.toMatchObject({ exitCode: 2 });
    await expect(thrown('userInContainer "root": no', 'userInContainer', 'forbidden')).rejects.toMatchObject({
      exitCode: 4,
    });
  });
});

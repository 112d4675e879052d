import { describe, expect, it } from 'vitest';
import { buildSubmitRequest, commandFromArgv, parseEnvPairs, withFlagNames } from '../../src/ui/submit-flags.js';
import { IrisError } from '../../src/model/errors.js';

describe('--env parsing', () => {
  it('splits at the first "=" and keeps empty values', () => {
    expect(parseEnvPairs(['A=1', 'URL=http://x?a=b', 'EMPTY=', '_X9=y'])).toEqual({
      A: '1',
      URL: 'http://x?a=b',
      EMPTY: '',
      _X9: 'y',
    });
  });

  it('copies the submitter\'s value for KEY without "="; an unset KEY is a usage error', () => {
    expect(parseEnvPairs(['HF_TOKEN', 'A=1'], { HF_TOKEN: 'hf_x' })).toEqual({ HF_TOKEN: 'hf_x', A: '1' });
    expect(() => parseEnvPairs(['NOVALUE'], {})).toThrow(/^--env NOVALUE: it is not set in your environment/);
  });

  it.each(['=x', '1A=x', 'A-B=x', 'A B=x'])('rejects %j with a usage error', (pair) => {
    let error: unknown;
    try {
      parseEnvPairs([pair]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IrisError);
    expect((error as IrisError).exitCode).toBe(2);
    expect((error as IrisError).message).toContain(`"${pair}"`);
  });
});

describe('command after --', () => {
  it('takes everything after the first --, flags included', () => {
    expect(
      commandFromArgv(
        ['-n', 'x', '--', 'python', 'x', '--lr', '3', '--', 'y'],
        ['python', 'x', '--lr', '3', '--', 'y'],
      ),
    ).toEqual(['python', 'x', '--lr', '3', '--', 'y']);
  });

  it('uses the parsed arguments without --', () => {
    expect(commandFromArgv(['echo', 'hi'], ['echo', 'hi'])).toEqual(['echo', 'hi']);
  });

  it('rejects a missing command, stray words and unknown flags', () => {
    expect(() => commandFromArgv([], [])).toThrow(/no command given/);
    expect(() => commandFromArgv(['--'], [])).toThrow(/no command given/);
    expect(() => commandFromArgv(['oops', '--', 'echo'], ['oops', 'echo'])).toThrow(/unexpected argument "oops"/);
    expect(() => commandFromArgv(['--cpuu', '2', '--', 'echo'], ['--cpuu', '2', 'echo'])).toThrow(
      /unknown flag "--cpuu"/,
    );
    expect(() => commandFromArgv(['--cpuu', 'echo'], ['--cpuu', 'echo'])).toThrow(/unknown flag "--cpuu"/);
  });
});

describe('buildSubmitRequest', () => {
  it('maps flags to the wire request, strings as typed', () => {
    const request = buildSubmitRequest(
      {
        name: 'train/eval',
        replicas: 4,
        cpu: '0.5',
        memory: '4GiB',
        gpu: 'H100x8',
        env: ['A=1'],
        constraint: ['region=us', 'pool in (a,b)'],
        coschedule: 'tpu-name',
        'max-retries': 2,
        'max-task-failures': 1,
        'max-preemptions': 5,
        'time-limit': '10m',
        'scheduling-timeout': '1h',
        user: 'bob',
      },
      ['python', 'train.py'],
      { cwd: '/work' },
    );
    expect(request).toEqual({
      name: 'train/eval',
      command: ['python', 'train.py'],
      workspace: '/work',
      replicas: 4,
      cpu: '0.5',
      memory: '4GiB',
      gpu: 'H100x8',
      env: { A: '1' },
      constraints: ['region=us', 'pool in (a,b)'],
      coschedule: 'tpu-name',
      maxRetries: 2,
      maxTaskFailures: 1,
      maxPreemptions: 5,
      timeLimit: '10m',
      schedulingTimeout: '1h',
      user: 'bob',
    });
  });

  it('maps --gpu-memory, --category and repeated --uses to their request fields', () => {
    expect(
      buildSubmitRequest(
        { gpu: '1', 'gpu-memory': '40GiB', category: 'inference', uses: ['llama-3-8b', 'tokenizer'] },
        ['serve'],
        { cwd: '/w' },
      ),
    ).toEqual({
      command: ['serve'],
      workspace: '/w',
      gpu: '1',
      gpuMemory: '40GiB',
      category: 'inference',
      uses: ['llama-3-8b', 'tokenizer'],
    });
  });

  it('omits unset flags, sends the current directory as the workspace and --cwd as the cwd', () => {
    expect(buildSubmitRequest({ cwd: '/elsewhere' }, ['true'], { cwd: '/work' })).toEqual({
      command: ['true'],
      workspace: '/work',
      cwd: '/elsewhere',
    });
    expect(
      buildSubmitRequest({ image: 'py', workspace: false, mount: ['/d:/d:ro'] }, ['true'], { cwd: '/work' }),
    ).toEqual({
      command: ['true'],
      workspace: '/work',
      image: 'py',
      mountWorkspace: false,
      mounts: ['/d:/d:ro'],
    });
  });
});

describe('withFlagNames', () => {
  const failing = (message: string, field?: string) => () =>
    Promise.reject(new IrisError('invalid_argument', message, 'the hint', field));

  it('names the flag the user typed instead of the request field', async () => {
    await expect(withFlagNames(failing('timeLimit: invalid duration "5x"', 'timeLimit'))).rejects.toMatchObject({
      message: '--time-limit: invalid duration "5x"',
      hint: 'the hint',
      exitCode: 2,
    });
    await expect(withFlagNames(failing('constraints[1]: bad constraint', 'constraints[1]'))).rejects.toMatchObject({
      message: '--constraint: bad constraint',
    });
    await expect(withFlagNames(failing('userInContainer: not a user', 'userInContainer'))).rejects.toMatchObject({
      message: '--user-in-container: not a user',
    });
    await expect(withFlagNames(failing('gpuMemory: invalid gpu memory "x"', 'gpuMemory'))).rejects.toMatchObject({
      message: '--gpu-memory: invalid gpu memory "x"',
    });
    await expect(withFlagNames(failing('uses[2]: bad key', 'uses[2]'))).rejects.toMatchObject({
      message: '--uses: bad key',
    });
  });

  it('passes other errors and results through unchanged', async () => {
    await expect(withFlagNames(failing('unknown job /x'))).rejects.toMatchObject({ message: 'unknown job /x' });
    await expect(withFlagNames(failing('timeLimit: a message without its field'))).rejects.toMatchObject({
      message: 'timeLimit: a message without its field',
    });
    await expect(withFlagNames(failing('stages.a.cpu: bad', 'stages.a.cpu'))).rejects.toMatchObject({
      message: 'stages.a.cpu: bad',
    });
    await expect(withFlagNames(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(withFlagNames(() => Promise.resolve(42))).resolves.toBe(42);
  });
});

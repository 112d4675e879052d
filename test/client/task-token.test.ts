/** Where the CLI finds its task token (src/client/task-token.ts): the variable, else the file it names. */
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inTask, MAX_TOKEN_FILE_BYTES, requireInTask, taskToken } from '../../src/client/task-token.js';
import { requireTaskCaller, taskOnlyRefusal } from '../../src/model/caller.js';
import { IrisError } from '../../src/model/errors.js';
import { refusal as refusalOf } from '../helpers/refusal.js';

const dir = mkdtempSync(path.join(tmpdir(), 'iris-task-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
}

const refusal = (env: Record<string, string>): IrisError => refusalOf(() => taskToken(env));

describe('taskToken', () => {
  it('outside a task: none', () => {
    expect(taskToken({})).toBeUndefined();
    expect(inTask({})).toBe(false);
  });

  it('a process task: IRIS_TASK_TOKEN', () => {
    expect(taskToken({ IRIS_TASK_TOKEN: ' tok ' })).toBe('tok');
    expect(inTask({ IRIS_TASK_TOKEN: 'tok' })).toBe(true);
  });

  it('a container task: the file IRIS_TASK_TOKEN_FILE names, trimmed', () => {
    const env = { IRIS_TASK_TOKEN_FILE: file('token', 'AbC-12_x\n') };
    expect(taskToken(env)).toBe('AbC-12_x');
    expect(inTask(env)).toBe(true);
  });

  it('a file that cannot be read, is too long, holds no token or is a link is an error naming it, never sent', () => {
    const missing = path.join(dir, 'missing');
    expect(refusal({ IRIS_TASK_TOKEN_FILE: missing }).message).toBe(
      `cannot read the task token from ${missing} (IRIS_TASK_TOKEN_FILE): ENOENT`,
    );
    expect(refusal({ IRIS_TASK_TOKEN_FILE: file('long', 'a'.repeat(MAX_TOKEN_FILE_BYTES + 1)) }).message).toMatch(
      /longer than 256 bytes$/,
    );
    expect(refusal({ IRIS_TASK_TOKEN_FILE: file('junk', 'two words') }).message).toMatch(/it holds no token$/);
    const link = path.join(dir, 'link');
    symlinkSync(file('real', 'tok'), link);
    expect(refusal({ IRIS_TASK_TOKEN_FILE: link }).message).toMatch(/: ELOOP$/);
    const closed = file('closed', 'tok');
    chmodSync(closed, 0o000);
    if (process.getuid?.() !== 0) expect(refusal({ IRIS_TASK_TOKEN_FILE: closed }).message).toMatch(/: EACCES$/);
  });
});

describe('requireInTask: the one "only inside a task" guard', () => {
  it('refuses outside a task with the same error the server gives a request without a token', () => {
    expect(() => requireInTask({ IRIS_TASK_TOKEN: 't' }, 'result')).not.toThrow();
    expect(() => requireInTask({ IRIS_TASK_TOKEN_FILE: '/run/token' }, 'endpoint')).not.toThrow();
    for (const action of ['result', 'endpoint'] as const) {
      let cli: unknown;
      try {
        requireInTask({}, action);
      } catch (error) {
        cli = error;
      }
      expect(cli).toBeInstanceOf(IrisError);
      expect(cli).toEqual(taskOnlyRefusal(action));
      expect(() => requireTaskCaller(null, action)).toThrow(taskOnlyRefusal(action));
      expect(cli).toMatchObject({ code: 'forbidden', exitCode: 4 });
    }
    expect(taskOnlyRefusal('result').message).toBe(
      'results can only be set from inside a running task: setting a result requires a task token',
    );
    expect(taskOnlyRefusal('endpoint').message).toBe(
      'endpoints can only be registered from inside a running task: registering an endpoint requires a task token',
    );
    expect(taskOnlyRefusal('endpoint').hint).toMatch(/^run `iris endpoints register NAME ADDRESS` in a task's command/);
    const caller = { task: '/t/task-0', job: '/t', attempt: 0 };
    expect(requireTaskCaller(caller, 'result')).toBe(caller);
  });
});

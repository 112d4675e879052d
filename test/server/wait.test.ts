/**
 * POST /v1/wait end to end inside one process: the real API server on a real unix socket, the
 * real ControllerService and controller (FakeRuntime), and the SocketClient sending a task token.
 * A task's wait is registered exactly while the request waits: answered, timed out, abandoned.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import { IrisError } from '../../src/model/errors.js';
import { LONG, spec, type Harness } from '../cluster/controller/helpers.js';
import { type InProcessServer, inProcessServer } from './in-process.js';

let h: Harness;
let socketPath: string;

let served: InProcessServer;

beforeEach(async () => {
  served = await inProcessServer('iris-wait-');
  ({ h, socketPath } = served);
});

afterEach(() => served.close());

/** The parent /p running on the only CPU, and a client that speaks with its task token. */
async function parentTask(): Promise<SocketClient> {
  h.store.submit(spec('/p', { command: LONG }));
  h.controller.start();
  await h.until(() => h.store.task('/p/task-0')?.state === 'RUNNING');
  const token = h.runtime.launches[0]!.env.IRIS_TASK_TOKEN!;
  return new SocketClient(socketPath, { IRIS_TASK_TOKEN: token });
}

/** Resolves once the registry holds `count` waits (checked now and on every change). */
function waitsAre(count: number): Promise<void> {
  return new Promise((resolve) => {
    if (h.controller.waits.all().length === count) return resolve();
    const off = h.controller.waits.onChange(() => {
      if (h.controller.waits.all().length !== count) return;
      off();
      resolve();
    });
  });
}

describe('POST /v1/wait', () => {
  it('a task waiting on its child releases its CPU until the child has ended, then answers done', async () => {
    const client = await parentTask();
    await client.submit({ command: LONG, name: 'c' });
    const answer = client.waitJobs({ jobs: ['/p/c'] });
    await waitsAre(1);
    expect(h.controller.waits.all()[0]).toMatchObject({
      caller: { task: '/p/task-0', attempt: 0 },
      jobs: ['/p/c'],
      releasesCpu: true,
    });
    // The child gets the CPU its waiting parent holds.
    await h.until(() => h.store.task('/p/c/task-0')?.state === 'RUNNING');
    h.runtime.exit('/p/c/task-0', 0);
    const { done, jobs } = await answer;
    expect(done).toBe(true);
    expect(jobs.map((j) => [j.name, j.state])).toEqual([['/p/c', 'SUCCEEDED']]);
    expect(h.controller.waits.all()).toEqual([]);
  });

  it('answers done: false at the timeout and ends the wait', async () => {
    const client = await parentTask();
    await client.submit({ command: LONG, name: 'c' });
    const answer = await client.waitJobs({ jobs: ['/p/c'], timeout: '30ms' });
    expect(answer.done).toBe(false);
    expect(answer.jobs[0]!.state).not.toMatch(/SUCCEEDED|FAILED/);
    expect(h.controller.waits.all()).toEqual([]);
  });

  it('ends the wait when the client goes away', async () => {
    const client = await parentTask();
    await client.submit({ command: LONG, name: 'c' });
    const ac = new AbortController();
    const answer = client.waitJobs({ jobs: ['/p/c'] }, ac.signal).catch((error: unknown) => error);
    await waitsAre(1);
    ac.abort(new Error('gone'));
    expect(((await answer) as Error).message).toBe('gone');
    await waitsAre(0);
    expect(h.store.task('/p/task-0')!.state).toBe('RUNNING');
  });

  it('with any, answers when one job has ended; 404 for an unknown job; no registration without a token', async () => {
    const client = await parentTask();
    await client.submit({ command: LONG, name: 'quick' });
    await client.submit({ command: LONG, name: 'slow' });
    const outside = new SocketClient(socketPath, {});
    const answer = outside.waitJobs({ jobs: ['/p/quick', '/p/slow'], any: true });
    // The parent holds the only CPU: quick runs once the parent waits on it.
    const parentWait = client.waitJobs({ jobs: ['/p/quick'] });
    await h.until(() => h.store.task('/p/quick/task-0')?.state === 'RUNNING');
    // Only the task's wait is registered: a wait without a token blocks no task.
    expect(h.controller.waits.all().map((w) => w.caller.task)).toEqual(['/p/task-0']);
    h.runtime.exit('/p/quick/task-0', 0);
    const { done, jobs } = await answer;
    expect(done).toBe(true);
    expect(jobs.map((j) => j.state)).toEqual(['SUCCEEDED', expect.stringMatching(/PENDING|RUNNING/)]);
    expect((await parentWait).done).toBe(true);
    const unknown = await outside.waitJobs({ jobs: ['/nope'] }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(IrisError);
    expect((unknown as IrisError).code).toBe('not_found');
  });

  it('refuses a bad body with the field named', async () => {
    const client = new SocketClient(socketPath, {});
    const error = await client.call('POST', '/v1/wait', { jobs: [], timeout: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IrisError);
    expect((error as IrisError).message).toMatch(/jobs/);
    const bad = await client.call('POST', '/v1/wait', { jobs: ['/a'], timeout: 'soon' }).catch((e: unknown) => e);
    expect((bad as IrisError).message).toMatch(/^timeout: invalid duration "soon"/);
  });
});

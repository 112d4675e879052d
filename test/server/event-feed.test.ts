/**
 * GET /v1/events as a state-change feed, inside one process: the real API server on a real unix
 * socket, the real ControllerService and controller (FakeRuntime), the SocketClient. Each event
 * carries the state the stream knew before (`previous`) and the reason; `current=1` opens with
 * the unfinished jobs and a SYNCED marker, so nothing between the listing and the changes is lost.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SocketClient } from '../../src/client/socket-client.js';
import type { ClusterEvent } from '../../src/model/events.js';
import { LONG, spec, type Harness } from '../cluster/controller/helpers.js';
import { type InProcessServer, inProcessServer } from './in-process.js';

let h: Harness;
let client: SocketClient;

let served: InProcessServer;

beforeEach(async () => {
  served = await inProcessServer('iris-events-');
  ({ h } = served);
  client = new SocketClient(served.socketPath, {});
});

afterEach(() => served.close());

/** Collects events into `seen` until `stop` holds for the list; resolves with it. */
function collect(
  options: { current?: boolean },
  stop: (seen: ClusterEvent[]) => boolean,
  onEvent: (seen: ClusterEvent[]) => void = () => {},
) {
  const seen: ClusterEvent[] = [];
  const abort = new AbortController();
  const done = (async () => {
    for await (const event of client.events(abort.signal, options)) {
      seen.push(event);
      onEvent(seen);
      if (stop(seen)) abort.abort();
    }
    return seen;
  })();
  return { seen, done };
}

/** `previous→state` of a job's changes after the opening listing (SYNCED), if any. */
const jobChanges = (events: ClusterEvent[], name: string) =>
  events
    .slice(events.findIndex((e) => e.type === 'cluster') + 1)
    .filter((e) => e.type === 'job' && e.name === name && e.state !== e.previous)
    .map((e) => `${e.previous ?? '(new)'}→${e.state}`);

describe('GET /v1/events', () => {
  it('opens with the unfinished jobs and SYNCED, then reports each change with the state before it', async () => {
    h.controller.start();
    h.store.submit(spec('/busy', { command: LONG }));
    await h.until(() => h.store.task('/busy/task-0')?.state === 'RUNNING');
    h.store.submit(spec('/next', { command: LONG }));
    const { done } = collect(
      { current: true },
      (seen) => jobChanges(seen, '/next').includes('RUNNING→SUCCEEDED'),
      (seen) => {
        // Once the listing is over, free the CPU: /next starts, then ends.
        if (seen.at(-1)?.type === 'cluster') h.runtime.exit('/busy/task-0', 0);
        if (
          seen.at(-1)?.type === 'task' &&
          seen.at(-1)?.name === '/next/task-0' &&
          seen.at(-1)?.state === 'RUNNING' &&
          seen.at(-1)?.attempt === undefined
        ) {
          h.runtime.exit('/next/task-0', 0);
        }
      },
    );
    const events = await done;
    expect(events.slice(0, 3).map((e) => [e.type, e.name, e.state, e.previous])).toEqual([
      ['job', '/busy', 'RUNNING', undefined],
      ['job', '/next', 'PENDING', undefined],
      ['cluster', '/', 'SYNCED', undefined],
    ]);
    expect(jobChanges(events, '/busy')).toEqual(['RUNNING→SUCCEEDED']);
    expect(jobChanges(events, '/next')).toEqual(['PENDING→RUNNING', 'RUNNING→SUCCEEDED']);
    const task = events.filter(
      (e) => e.type === 'task' && e.name === '/next/task-0' && e.attempt === undefined && e.state !== e.previous,
    );
    expect(task.map((e) => `${e.previous}→${e.state}`)).toEqual([
      'PENDING→ASSIGNED',
      'ASSIGNED→RUNNING',
      'RUNNING→SUCCEEDED',
    ]);
    const attempt = events.filter((e) => e.name === '/next/task-0' && e.attempt === 0);
    expect(attempt[0]).toMatchObject({ type: 'task', state: 'RUNNING' });
    expect(attempt[0]!.previous).toBeUndefined();
  });

  it(
    'without current, sends only changes; a job submitted later has no previous state, and a failure its ' + 'reason',
    async () => {
      h.controller.start();
      const { done } = collect(
        {},
        (seen) => jobChanges(seen, '/late').includes('RUNNING→FAILED'),
        (seen) => {
          const last = seen.at(-1)!;
          if (
            last.type === 'task' &&
            last.name === '/late/task-0' &&
            last.state === 'RUNNING' &&
            last.attempt === undefined
          )
            h.runtime.exit('/late/task-0', 3);
        },
      );
      // A request answered after the stream's own was sent: the server has opened the stream by then.
      await client.jobs();
      await client.submit({ name: 'late', command: LONG });
      const events = await done;
      expect(events.some((e) => e.type === 'cluster')).toBe(false);
      expect(jobChanges(events, '/late')).toEqual(['(new)→PENDING', 'PENDING→RUNNING', 'RUNNING→FAILED']);
      const failed = events.find((e) => e.type === 'job' && e.state === 'FAILED')!;
      expect(failed.reason).toMatch(/exit 3/);
    },
  );
});

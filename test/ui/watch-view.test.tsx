import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import type { ClusterEvent } from '../../src/model/events.js';
import type { JobSummary, WorkerInfo } from '../../src/api/types.js';
import { WatchView } from '../../src/ui/watch/WatchView.js';
import { WatchApp } from '../../src/ui/watch/WatchApp.js';
import { renderSnapshotText, summaryLine } from '../../src/ui/watch/snapshot.js';
import { job, NOW, worker } from './fixtures.js';

const lastNonEmptyFrame = (frames: string[]) => [...frames].reverse().find((frame) => frame.trim() !== '') ?? '';

const snapshot = {
  time: NOW,
  jobs: [
    job('/train'),
    job('/train/eval', {
      state: 'PENDING',
      reason: 'need 4 CPU, largest free worker has 2',
      tasks: { total: 1, byState: { PENDING: 1 } },
    }),
  ],
  workers: [worker('local-0', { runningTasks: ['/train/task-0'] })],
};

describe('watch view', () => {
  it('renders jobs, workers and running tasks from one snapshot', () => {
    const { frames, unmount } = render(<WatchView snapshot={snapshot} />);
    const frame = lastNonEmptyFrame(frames);
    unmount();
    expect(frame).toContain('2 jobs (1 running, 1 pending) · 1 worker · 1 task running');
    expect(frame).toContain('/train');
    expect(frame).toMatch(/└─ eval\s+PENDING/);
    expect(frame).toContain('need 4 CPU, largest free worker has 2');
    expect(frame).toMatch(/local-0\s+READY/);
    expect(frame).toContain('local-0: /train/task-0');
  });

  it('shows the connection state before the first snapshot', () => {
    const { lastFrame, rerender, unmount } = render(<WatchView snapshot={null} />);
    expect(lastFrame()).toContain('connecting');
    rerender(<WatchView snapshot={null} error="no iris cluster is running" />);
    expect(lastFrame()).toContain('iris watch: no iris cluster is running');
    unmount();
  });

  it('plain-text snapshot has the same content', () => {
    const text = renderSnapshotText(snapshot);
    expect(text.split('\n')[0]).toBe(summaryLine(snapshot));
    expect(text).toContain('Running tasks:\nlocal-0: /train/task-0');
  });
});

/** A fake cluster whose events are pushed by the test. */
function fakeClient() {
  let jobs: JobSummary[] = [job('/a')];
  const workers: WorkerInfo[] = [worker('local-0')];
  let push: ((event: ClusterEvent) => void) | null = null;
  const queue: ClusterEvent[] = [];
  const client = {
    jobs: async () => jobs,
    workers: async () => workers,
    async *events(signal?: AbortSignal): AsyncIterable<ClusterEvent> {
      while (!signal?.aborted) {
        const next =
          queue.shift() ??
          (await new Promise<ClusterEvent | null>((resolve) => {
            push = resolve;
            signal?.addEventListener('abort', () => resolve(null), { once: true });
          }));
        if (!next) return;
        yield next;
      }
    },
  };
  return {
    client,
    setJobs: (next: JobSummary[]) => (jobs = next),
    emit: (event: ClusterEvent) => (push ? (push(event), (push = null)) : queue.push(event)),
  };
}

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('watch app', () => {
  it('loads a snapshot and refreshes on cluster events', async () => {
    const fake = fakeClient();
    const { frames, unmount } = render(
      <WatchApp client={fake.client} now={() => NOW} minIntervalMs={0} tickMs={60_000} interactive={false} />,
    );
    await until(() => lastNonEmptyFrame(frames).includes('/a'));
    fake.setJobs([job('/a'), job('/b', { state: 'PENDING' })]);
    fake.emit({ type: 'job', name: '/b', state: 'PENDING', time: NOW });
    await until(() => lastNonEmptyFrame(frames).includes('/b'));
    expect(lastNonEmptyFrame(frames)).toContain('2 jobs (1 running, 1 pending)');
    unmount();
  });
});

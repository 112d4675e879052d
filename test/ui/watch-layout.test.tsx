import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import type { ClusterEvent } from '../../src/model/events.js';
import type { JobSummary } from '../../src/api/types.js';
import { bodyLines, finishedLine, fitFrame, splitActive } from '../../src/ui/watch/layout.js';
import { WatchApp } from '../../src/ui/watch/WatchApp.js';
import type { WatchSnapshot } from '../../src/ui/watch/snapshot.js';
import { job, NOW, worker } from './fixtures.js';

const pad = (i: number) => String(i).padStart(2, '0');

/** 40 jobs: the even ones finished (SUCCEEDED, two FAILED), the odd ones running or pending. */
function forty(): WatchSnapshot {
  const jobs: JobSummary[] = [];
  for (let i = 0; i < 40; i++) {
    const name = `/job-${pad(i)}`;
    if (i % 2 === 0) {
      const state = i < 4 ? 'FAILED' : 'SUCCEEDED';
      jobs.push(job(name, { state, finishedAt: NOW - 1000, tasks: { total: 1, byState: { [state]: 1 } } }));
    } else {
      jobs.push(
        job(
          name,
          i % 4 === 1
            ? {}
            : {
                state: 'PENDING',
                startedAt: null,
                reason: 'need 1 CPU, largest free worker has 0',
                tasks: { total: 1, byState: { PENDING: 1 } },
              },
        ),
      );
    }
  }
  return { time: NOW, jobs, workers: [worker('w0', { runningTasks: ['/job-01/task-0', '/job-05/task-0'] })] };
}

describe('watch layout', () => {
  it('fits 40 jobs into 80x24: title, summary and footer stay, active jobs first, finished ones collapsed', () => {
    const frame = fitFrame(forty(), { rows: 24, offset: 0 });
    expect(frame.lines.length).toBe(23);
    expect(frame.lines[0]).toMatch(/^iris watch · /);
    expect(frame.lines[1]).toBe(
      '40 jobs (2 failed, 10 running, 10 pending, 18 succeeded) · 1 worker · 2 tasks running',
    );
    expect(frame.lines.at(-1)).toMatch(/^q or Ctrl-C quit · .*scroll · lines 1-20 of \d+$/);
    expect(frame.lines[2]).toMatch(/^JOB\s+STATE/);
    const rows = frame.lines.slice(3, -1);
    expect(rows.every((line) => /^\/job-\d\d\s+(RUNNING|PENDING)/.test(line))).toBe(true);
    expect(rows[0]).toMatch(/^\/job-01\s+RUNNING/);
  });

  it('collapses finished trees into one count line after the active ones, then workers', () => {
    const body = bodyLines(forty());
    const collapsed = body.indexOf('20 finished jobs: 2 failed, 18 succeeded (`iris jobs` lists them)');
    expect(collapsed).toBe(21); // table header + 20 active rows
    expect(body.some((line) => /SUCCEEDED|FAILED/.test(line))).toBe(false);
    expect(body.slice(collapsed)).toContain('Workers');
    expect(body.at(-1)).toBe('w0: /job-01/task-0, /job-05/task-0');
  });

  it('keeps a tree with an unfinished job whole, finished children included', () => {
    const jobs = [job('/a', { state: 'SUCCEEDED' }), job('/b'), job('/b/done', { state: 'SUCCEEDED' })];
    const { active, finished } = splitActive(jobs);
    expect(active.map((j) => j.name)).toEqual(['/b', '/b/done']);
    expect(finishedLine(finished)).toBe('1 finished job: 1 succeeded (`iris jobs` lists them)');
  });

  it('clamps the offset, shows the position and never exceeds rows - 1 lines', () => {
    const snapshot = forty();
    const end = fitFrame(snapshot, { rows: 24, offset: 1000 });
    expect(end.offset).toBe(end.maxOffset);
    expect(end.lines.length).toBe(23);
    expect(end.lines.at(-2)).toBe('w0: /job-01/task-0, /job-05/task-0');
    expect(end.lines.at(-1)).toContain(`of ${bodyLines(snapshot).length}`);
    expect(fitFrame(snapshot, { rows: 24, offset: -5 }).offset).toBe(0);
    for (const rows of [1, 3, 5, 10, 60]) {
      const frame = fitFrame(snapshot, { rows, offset: 3, error: 'lost the connection' });
      expect(frame.lines.length).toBeLessThanOrEqual(Math.max(3, rows - 1));
      expect(frame.lines.at(-1)).toMatch(/^q or Ctrl-C quit/);
    }
  });

  it('needs no scrolling when everything fits', () => {
    const small: WatchSnapshot = { time: NOW, jobs: [job('/a')], workers: [worker('w0')] };
    const frame = fitFrame(small, { rows: 24, offset: 4 });
    expect(frame.maxOffset).toBe(0);
    expect(frame.lines.at(-1)).not.toContain('lines');
  });
});

describe('watch app keys', () => {
  it('scrolls with j, G and g within the terminal rows', async () => {
    const snapshot = forty();
    const client = {
      jobs: async () => snapshot.jobs,
      workers: async () => snapshot.workers,
      async *events(signal?: AbortSignal): AsyncIterable<ClusterEvent> {
        await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
      },
    };
    const { lastFrame, stdin, unmount } = render(
      <WatchApp client={client} now={() => NOW} minIntervalMs={0} tickMs={60_000} rows={12} />,
    );
    const frame = () => lastFrame() ?? '';
    await until(() => frame().includes('lines 1-8 of'));
    stdin.write('j');
    await until(() => frame().includes('lines 2-9 of'));
    stdin.write('G');
    await until(() => frame().includes('w0: /job-01/task-0'));
    expect(frame().split('\n').length).toBeLessThanOrEqual(11);
    stdin.write('g');
    await until(() => frame().includes('lines 1-8 of'));
    unmount();
  });
});

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

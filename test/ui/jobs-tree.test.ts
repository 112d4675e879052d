import { describe, expect, it } from 'vitest';
import { formatTaskCounts, jobTreeRows, liveBelowText, renderJobsTree } from '../../src/ui/jobs-tree.js';
import { job, NOW } from './fixtures.js';

describe('jobs tree', () => {
  it('nests children under parents, sorted by name, with guides', () => {
    const jobs = [
      job('/train/eval/score'),
      job('/sweep', {
        state: 'PENDING',
        reason: 'need 4 CPU, largest free worker has 2',
        user: 'bob',
        band: 'batch',
        tasks: { total: 2, byState: { PENDING: 2 } },
      }),
      job('/train', { tasks: { total: 4, byState: { SUCCEEDED: 3, RUNNING: 1 } }, replicas: 4 }),
      job('/train/eval'),
      job('/train/data', {
        state: 'SUCCEEDED',
        tasks: { total: 1, byState: { SUCCEEDED: 1 } },
        finishedAt: NOW - 1000,
      }),
    ];
    expect(renderJobsTree(jobs, NOW)).toBe(
      [
        'JOB          STATE      TASKS              USER   BAND         AGE    REASON',
        '/sweep       PENDING    0/2 ok, 2 pending  bob    batch        1m05s  need 4 CPU, largest free worker has 2',
        '/train       RUNNING    3/4 ok, 1 running  alice  interactive  1m05s',
        '├─ data      SUCCEEDED  1/1 ok             alice  interactive  1m05s',
        '└─ eval      RUNNING    0/1 ok, 1 running  alice  interactive  1m05s',
        '   └─ score  RUNNING    0/1 ok, 1 running  alice  interactive  1m05s',
      ].join('\n'),
    );
  });

  it("shows each job's run id in a RUN column when asked (iris jobs)", () => {
    const jobs = [job('/train', { run: 12 }), job('/train/eval', { run: 140 })];
    expect(renderJobsTree(jobs, NOW, { runs: true })).toBe(
      [
        'JOB      RUN  STATE    TASKS              USER   AGE    REASON',
        '/train    12  RUNNING  0/1 ok, 1 running  alice  1m05s',
        '└─ eval  140  RUNNING  0/1 ok, 1 running  alice  1m05s',
      ].join('\n'),
    );
  });

  it('draws the deepest tree a name allows (16 levels) and 100,000 siblings, in order', () => {
    const deep = Array.from({ length: 16 }, (_, i) => job(Array.from({ length: i + 1 }, (_, k) => `/d${k}`).join('')));
    const labels = jobTreeRows([...deep].reverse()).map((r) => r.label);
    expect(labels[0]).toBe('/d0');
    expect(labels[15]).toBe(`${'   '.repeat(14)}└─ d15`);
    const n = 100_000;
    const wide = [job('/w'), ...Array.from({ length: n }, (_, i) => job(`/w/c${String(i).padStart(6, '0')}`))];
    const rows = jobTreeRows(wide.reverse());
    expect(rows).toHaveLength(n + 1);
    expect(rows.slice(0, 3).map((r) => r.label)).toEqual(['/w', '├─ c000000', '├─ c000001']);
    expect(rows[n]!.label).toBe('└─ c099999');
  });

  it('shows a job whose parent is not listed as a root with its full path', () => {
    const rows = jobTreeRows([job('/a/b/c'), job('/x')]);
    expect(rows.map((r) => r.label)).toEqual(['/a/b/c', '/x']);
  });

  it('draws continuation guides for non-last siblings', () => {
    const rows = jobTreeRows([job('/r'), job('/r/a'), job('/r/a/x'), job('/r/b')]);
    expect(rows.map((r) => r.label)).toEqual(['/r', '├─ a', '│  └─ x', '└─ b']);
  });

  it('says so when there are no jobs', () => {
    expect(renderJobsTree([], NOW)).toBe('no jobs');
  });

  it('summarises task states', () => {
    expect(formatTaskCounts({ total: 3, byState: { SUCCEEDED: 1, FAILED: 1, PREEMPTED: 1 } })).toBe(
      '1/3 ok, 1 failed, 1 preempted',
    );
  });

  it('gives an ended job with jobs below it still live a reason saying how many, its own reason first', () => {
    const parent = job('/p', { state: 'SUCCEEDED', liveDescendants: 1 });
    const text = renderJobsTree([parent, job('/p/bg', { state: 'RUNNING' })], NOW);
    expect(text).toMatch(/^\/p\s+SUCCEEDED\s.*\s1 job below it still running or pending$/m);
    expect(liveBelowText({ liveDescendants: 3 })).toBe('3 jobs below it still running or pending');
    expect(liveBelowText({})).toBeNull();
    const withReason = renderJobsTree([{ ...parent, reason: 'its own reason' }], NOW);
    expect(withReason).toMatch(/its own reason$/m);
    expect(withReason).not.toContain('below it');
  });
});

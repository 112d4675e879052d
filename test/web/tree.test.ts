import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobSummary } from '../../src/api/types.js';
import { buildTree, crumbs, filtersOf, isWithin, NO_FILTERS, parentOf } from '../../src/web/tree.js';

let clock = 0;
function job(name: string, extra: Partial<JobSummary> = {}): JobSummary {
  const parent = parentOf(name);
  return {
    name,
    run: ++clock,
    archived: false,
    user: 'alice',
    state: 'RUNNING',
    reason: null,
    depth: name.split('/').length - 1,
    parent,
    replicas: 1,
    tasks: { total: 1, byState: { RUNNING: 1 } },
    submittedAt: clock,
    startedAt: null,
    finishedAt: null,
    ...extra,
  };
}

const names = (rows: ReturnType<typeof buildTree>) => rows.map((r) => `${'  '.repeat(r.depth)}${r.job.name}`);

describe('buildTree', () => {
  it('puts children under their parent, indented by depth, oldest first', () => {
    const jobs = [job('/b'), job('/a'), job('/a/y'), job('/a/x'), job('/a/x/deep'), job('/b/z')];
    expect(names(buildTree(jobs))).toEqual(['/b', '  /b/z', '/a', '  /a/y', '  /a/x', '    /a/x/deep']);
    expect(buildTree(jobs).find((r) => r.job.name === '/a')?.children).toBe(2);
  });

  it('zooms into a subtree: the root at depth 0, nothing outside it', () => {
    const jobs = [job('/a'), job('/a/x'), job('/a/x/deep'), job('/ab'), job('/b')];
    expect(names(buildTree(jobs, '/a'))).toEqual(['/a', '  /a/x', '    /a/x/deep']);
    expect(names(buildTree(jobs, '/a/x'))).toEqual(['/a/x', '  /a/x/deep']);
  });

  it('a job whose parent is not listed is a root of its own', () => {
    expect(names(buildTree([job('/gone/child'), job('/top')]))).toEqual(['/gone/child', '/top']);
  });

  it('keeps the ancestors of a match as context and drops what leads to none', () => {
    const jobs = [
      job('/a', { state: 'SUCCEEDED' }),
      job('/a/x', { state: 'FAILED' }),
      job('/a/y', { state: 'SUCCEEDED' }),
      job('/b', { state: 'SUCCEEDED' }),
    ];
    const rows = buildTree(jobs, '', { ...NO_FILTERS, states: ['FAILED'] });
    expect(names(rows)).toEqual(['/a', '  /a/x']);
    expect(rows.map((r) => r.context)).toEqual([true, false]);
  });

  it('filters by user and name prefix', () => {
    const jobs = [job('/train', { user: 'bob' }), job('/train2'), job('/eval')];
    expect(names(buildTree(jobs, '', { ...NO_FILTERS, user: 'bob' }))).toEqual(['/train']);
    expect(names(buildTree(jobs, '', { ...NO_FILTERS, prefix: 'train' }))).toEqual(['/train', '/train2']);
  });

  it('lists every job exactly once, each after its parent (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'c');
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 30 }), (list) => {
        const rows = buildTree(list.map((n) => job(n)));
        expect(rows.map((r) => r.job.name).sort()).toEqual([...list].sort());
        const seen = new Set<string>();
        for (const row of rows) {
          const parent = parentOf(row.job.name);
          if (parent && list.includes(parent)) expect(seen.has(parent)).toBe(true);
          seen.add(row.job.name);
        }
      }),
    );
  });
});

describe('tree helpers', () => {
  it('isWithin covers the root and what is below it, not a sibling sharing a prefix', () => {
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/x', '')).toBe(true);
  });

  it('crumbs lists the path to the root', () => {
    expect(crumbs('/a/b/c')).toEqual(['/a', '/a/b', '/a/b/c']);
    expect(crumbs('')).toEqual([]);
  });

  it('filtersOf reads states case-insensitively with - for _', () => {
    expect(filtersOf({ state: 'running, out-of-memory', user: 'bob' })).toEqual({
      states: ['RUNNING', 'OUT_OF_MEMORY'],
      user: 'bob',
      prefix: '',
    });
  });
});

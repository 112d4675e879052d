/**
 * Pipelines in the simulator (src/sim/needs.ts): a need that never ran skips its held dependents
 * transitively, depth-first, with the reason naming the need; a chain of 100,000 needs is walked
 * by a loop (no stack overflow) in linear time.
 */
import { describe, expect, it } from 'vitest';
import { Pipelines } from '../../src/sim/needs.js';
import type { SimJob } from '../../src/sim/workload.js';

const job = (name: string, needs: string[] = []): SimJob => ({ name, needs, children: [] }) as unknown as SimJob;

describe('simulator pipelines', () => {
  it('skips held dependents depth-first, each followed by the jobs its skip skips', () => {
    const jobs = [job('/a'), job('/b', ['/a']), job('/c', ['/b']), job('/d', ['/a']), job('/e', ['/d', '/c'])];
    const pipelines = new Pipelines(jobs);
    expect(pipelines.skipped('/a').map((s) => [s.job.name, s.reason])).toEqual([
      ['/b', 'needs /a, which never ran'],
      ['/c', 'needs /b, which never ran'],
      ['/e', 'needs /c, which never ran'],
      ['/d', 'needs /a, which never ran'],
    ]);
    expect(pipelines.held()).toEqual([]);
  });

  it('judges an ended need by the live `--after` rule: a stage of a need that did not succeed never runs', () => {
    const jobs = [job('/a'), job('/b', ['/a']), job('/c', ['/b']), job('/d', ['/a', '/x'])];
    const failed = new Pipelines(jobs);
    const out = failed.ended('/a', 'TIMEOUT');
    expect(out.released).toEqual([]);
    expect(out.skipped.map((s) => [s.job.name, s.reason])).toEqual([
      ['/b', 'dependency /a ended TIMEOUT'],
      ['/c', 'dependency /b failed'],
      ['/d', 'dependency /a ended TIMEOUT'],
    ]);
    expect(failed.held()).toEqual([]);
    const ok = new Pipelines(jobs);
    expect(ok.ended('/a', 'SUCCEEDED')).toEqual({ released: [jobs[1]], skipped: [] });
    expect(ok.held().map((h) => h.name)).toEqual(['/c', '/d']);
  });

  it('skips a chain of 100,000 needs', () => {
    const n = 100_000;
    const jobs = Array.from({ length: n }, (_, i) => job(`/j${i}`, i === 0 ? [] : [`/j${i - 1}`]));
    const t0 = performance.now();
    const skipped = new Pipelines(jobs).skipped('/j0');
    expect(skipped).toHaveLength(n - 1);
    expect(skipped[n - 2]).toEqual({ job: jobs[n - 1], reason: `needs /j${n - 2}, which never ran` });
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});

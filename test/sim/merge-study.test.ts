/**
 * The merging rows of the dispatch study (docs/simulate.md, "Task merging"): the simulator merges
 * with the scheduler's own rule (cluster/scheduler/placement/merge.ts); the documented table is
 * regenerated exactly from seed 1.
 */
import { describe, expect, it } from 'vitest';
import { documentedTable } from './doc-table.js';
import { runMergeStudy } from '../../src/sim/study.js';
import { MERGE_STUDY_HEADERS, mergeStudyCells } from '../../src/ui/simulation.js';

describe('task merging in the dispatch study', () => {
  it('regenerates the documented table exactly from seed 1', () => {
    const { rows } = runMergeStudy({ seed: 1 });
    const [header, rule, ...cells] = documentedTable('merge-study-table');
    expect(header).toEqual([...MERGE_STUDY_HEADERS]);
    expect(rule!.every((cell) => /^-+$/.test(cell))).toBe(true);
    expect(cells).toEqual(rows.map(mergeStudyCells));
  });

  it('merging off merges nothing; on, batches hold at most 4 tasks and no job is left or cut short', () => {
    const [off, on] = runMergeStudy({ seed: 1 }).rows;
    expect(off).toMatchObject({ merge: false, mergedTasks: 0, batches: 0, timeLimited: 0 });
    expect(on!.merge).toBe(true);
    expect(on!.batches).toBeGreaterThan(0);
    expect(on!.mergedTasks).toBeGreaterThanOrEqual(on!.batches);
    expect(on!.mergedTasks).toBeLessThanOrEqual(3 * on!.batches);
    expect(on!.timeLimited).toBe(0);
  });

  it('with requests in bursts, merging saves model loads and cost', () => {
    const [, , off, on] = runMergeStudy({ seed: 1 }).rows;
    expect(off).toMatchObject({ arrivals: 'bursts', merge: false, mergedTasks: 0 });
    expect(on).toMatchObject({ arrivals: 'bursts', merge: true, timeLimited: 0 });
    expect(on!.modelLoads).toBeLessThan(off!.modelLoads);
    expect(on!.totalCost).toBeLessThan(off!.totalCost);
  });
});

/**
 * The preemption study (docs/simulate.md, "Preemption study"): docs/examples/preemption.yaml run
 * without preemption and with it at each exempt time regenerates the documented table cell by
 * cell, and the rules it shows hold in the numbers.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentedTable } from './doc-table.js';
import { loadWorkload } from '../../src/sim/load.js';
import { PREEMPTION_STUDY_HEADERS, preemptionStudyCells, runPreemptionStudy } from '../../src/sim/preemption-study.js';

const WORKLOAD = fileURLToPath(new URL('../../docs/examples/preemption.yaml', import.meta.url));

describe('the preemption study (docs/simulate.md, "Preemption study")', () => {
  it('regenerates the documented table exactly', async () => {
    const rows = runPreemptionStudy(await loadWorkload(WORKLOAD, {}));
    const [header, rule, ...documented] = documentedTable('preemption-table');
    expect(header).toEqual([...PREEMPTION_STUDY_HEADERS]);
    expect(rule!.every((cell) => /^-+$/.test(cell))).toBe(true);
    expect(documented).toEqual(rows.map(preemptionStudyCells));
  });

  it('preemption trades batch work for interactive waits, and every job still finishes', async () => {
    const [off, ...on] = runPreemptionStudy(await loadWorkload(WORKLOAD, {}));
    expect(off!.summary.preemption).toBeUndefined();
    for (const row of [off!, ...on]) expect(row.summary).toMatchObject({ unfinished: 0, deadlocked: 0 });
    for (const row of on) {
      // An interactive job waits at most about the grace, and never longer than without preemption.
      expect(row.interactive.waitP95).toBeLessThan(off!.interactive.waitP95);
      expect(row.interactive.waitMean).toBeLessThan(off!.interactive.waitMean / 5);
      // The batch work lost is paid by batch jobs only: no interactive task is ever stopped.
      expect(row.interactive.preemptions).toBe(0);
      expect(row.batch.preemptions).toBe(row.summary.preemption!.tasks);
      expect(row.batch.slowdownMean).toBeGreaterThan(off!.batch.slowdownMean);
    }
    // A longer exempt time keeps recently started tasks running: the victims are older, more is lost.
    expect(on.at(-1)!.summary.preemption!.lostCpuSeconds).toBeGreaterThan(on[0]!.summary.preemption!.lostCpuSeconds);
  });
});

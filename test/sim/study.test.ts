import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { prng, runStudy, studyWorkload } from '../../src/sim/study.js';
import { STUDY_HEADERS, studyCells } from '../../src/ui/simulation.js';
import { countJobs } from '../../src/sim/workload.js';

const DOC = fileURLToPath(new URL('../../docs/simulate.md', import.meta.url));

/** The Markdown table between the study-table markers of docs/simulate.md, as rows of trimmed cells. */
function documentedTable(): string[][] {
  const text = readFileSync(DOC, 'utf8');
  const match = /<!-- study-table:start -->\n([\s\S]*?)\n<!-- study-table:end -->/.exec(text);
  if (!match) throw new Error('docs/simulate.md has no study table between the markers');
  return match[1]!
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
}

describe('the dispatch study (docs/simulate.md, "Dispatch study")', () => {
  it('regenerates the documented table exactly from seed 1', () => {
    const started = Date.now();
    const result = runStudy({ seed: 1 });
    const [header, rule, ...rows] = documentedTable();
    expect(header).toEqual([...STUDY_HEADERS]);
    expect(rule!.every((cell) => /^-+$/.test(cell))).toBe(true);
    expect(rows).toEqual(result.rows.map(studyCells));
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('every job of the study finishes in every combination', () => {
    const result = runStudy({ seed: 1 });
    for (const row of result.rows) {
      expect(row.metrics).toMatchObject({ jobs: countJobs(studyWorkload(1).jobs), unfinished: 0 });
    }
  });

  it('the workload is a function of the seed and matches its description', () => {
    const a = studyWorkload(1);
    expect(studyWorkload(1)).toEqual(a);
    expect(studyWorkload(2).jobs.map((j) => j.submit)).not.toEqual(a.jobs.map((j) => j.submit));
    expect(a.workers.map((w) => [w.id, w.costPerHour, w.device.count, w.device.memoryBytes ?? null])).toEqual([
      ['h100-0', 12, 8, 80 * 1024 ** 3],
      ['h100-1', 12, 8, 80 * 1024 ** 3],
      ...Array.from({ length: 8 }, (_, k) => [`l4-${k}`, 1.2, 1, 24 * 1024 ** 3]),
      ...Array.from({ length: 4 }, (_, k) => [`cpu-${k}`, 0.3, 0, null]),
    ]);
    const evals = a.jobs.filter((j) => /^\/ft-\d+-eval-[ab]$/.test(j.name));
    expect(evals).toHaveLength(12);
    for (const e of evals) {
      const train = e.name.replace(/-eval-[ab]$/, '-train');
      expect(e).toMatchObject({ needs: [train], category: 'inference', uses: [train.slice(1).replace(/-train$/, '')] });
    }
    // Times are whole seconds, so the documented numbers do not depend on float formatting of times.
    expect(a.jobs.every((j) => Number.isInteger(j.submit) && Number.isInteger(j.run))).toBe(true);
  });

  it('prng is mulberry32: its first numbers for seed 1 are fixed (the study and the benchmarks draw from it)', () => {
    const next = prng(1);
    expect([next(), next(), next()].map((x) => x.toFixed(10))).toEqual([
      '0.6270739406',
      '0.0027357212',
      '0.5274470400',
    ]);
  });
});

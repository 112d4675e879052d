import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { JOB_STATES, TASK_STATES } from '../../src/model/states.js';
import { colourEnabled, makeStyle, PLAIN, stateColour } from '../../src/ui/colour.js';
import { renderWorkers } from '../../src/ui/cluster.js';
import { renderJobsTree } from '../../src/ui/jobs-tree.js';
import { renderTable } from '../../src/ui/table.js';
import { job, NOW, worker } from './fixtures.js';

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';

describe('when there is colour', () => {
  const cases: Array<[string, Record<string, string>, boolean, boolean, boolean]> = [
    ['a terminal', {}, true, false, true],
    ['a pipe', {}, false, false, false],
    ['--json on a terminal', {}, true, true, false],
    ['--json with FORCE_COLOR', { FORCE_COLOR: '1' }, false, true, false],
    ['NO_COLOR on a terminal', { NO_COLOR: '1' }, true, false, false],
    ['an empty NO_COLOR (ignored)', { NO_COLOR: '' }, true, false, true],
    ['FORCE_COLOR on a pipe', { FORCE_COLOR: '1' }, false, false, true],
    ['an empty FORCE_COLOR on a pipe', { FORCE_COLOR: '' }, false, false, true],
    ['FORCE_COLOR=0 on a terminal', { FORCE_COLOR: '0' }, true, false, false],
    ['FORCE_COLOR=false on a terminal', { FORCE_COLOR: 'false' }, true, false, false],
    ['NO_COLOR and FORCE_COLOR (NO_COLOR wins)', { NO_COLOR: '1', FORCE_COLOR: '1' }, false, false, false],
  ];
  it.each(cases)('%s', (_what, env, isTTY, json, expected) => {
    expect(colourEnabled({ env, isTTY, json })).toBe(expected);
  });
});

describe('state colours', () => {
  it('gives every job, task and worker state a colour', () => {
    for (const state of [...JOB_STATES, ...TASK_STATES, 'READY', 'DRAINING', 'DRAINED']) {
      expect(stateColour(state), state).not.toEqual({});
    }
  });

  it('paints failures red, running green, pending yellow and nothing when off', () => {
    const style = makeStyle(true);
    expect(style.state('FAILED')).toBe(`${RED}FAILED\u001b[39m`);
    expect(style.state('RUNNING')).toBe(`${GREEN}RUNNING\u001b[39m`);
    expect(style.state('PENDING')).toBe(`${YELLOW}PENDING\u001b[39m`);
    expect(style.state('ASSIGNED')).toBe('\u001b[36mASSIGNED\u001b[39m');
    expect(style.state('KILLED')).toBe('\u001b[90mKILLED\u001b[39m');
    expect(style.state('SUCCEEDED')).toBe('\u001b[2mSUCCEEDED\u001b[22m');
    expect(style.state('SOMETHING_NEW')).toBe('SOMETHING_NEW');
    expect(makeStyle(false)).toBe(PLAIN);
    expect(PLAIN.state('FAILED')).toBe('FAILED');
  });
});

describe('tables with colour', () => {
  it('align columns by what the terminal shows, not by escape codes', () => {
    const style = makeStyle(true);
    const rows = [
      { s: 'FAILED', n: '1' },
      { s: 'RUNNING', n: '10' },
    ];
    const table = renderTable(rows, [
      { header: 'STATE', value: (r) => r.s, paint: (cell) => style.state(cell) },
      { header: 'N', value: (r) => r.n, paint: (cell) => style.state(cell), right: true },
      { header: 'END', value: () => 'x' },
    ]);
    expect(stripVTControlCharacters(table)).toBe(['STATE     N  END', 'FAILED    1  x', 'RUNNING  10  x'].join('\n'));
  });

  it('colours the jobs tree and workers the same as plain, but for the escape codes', () => {
    const jobs = [job('/train', { state: 'RUNNING' }), job('/train/eval', { state: 'FAILED', parent: '/train' })];
    const coloured = renderJobsTree(jobs, NOW, { style: makeStyle(true) });
    expect(coloured).toContain(`${RED}FAILED`);
    expect(stripVTControlCharacters(coloured)).toBe(renderJobsTree(jobs, NOW));
    const workers = [worker('a', { state: 'DRAINED' }), worker('b')];
    const colouredWorkers = renderWorkers(workers, makeStyle(true));
    expect(colouredWorkers).toContain(`${GREEN}READY`);
    expect(stripVTControlCharacters(colouredWorkers)).toBe(renderWorkers(workers));
  });
});

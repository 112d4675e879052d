import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IrisError } from '../../src/model/errors.js';
import { parseSwf, readSwf, usableSwfJobs, type SwfJob } from '../../src/sim/swf.js';
import { refusal } from '../helpers/refusal.js';

/** One 18-field SWF line. */
const line = (id: number, submit: number, run: number, alloc: number, req: number, reqTime: number, user = 1) =>
  `${id} ${submit} -1 ${run} ${alloc} -1 -1 ${req} ${reqTime} -1 1 ${user} 1 -1 0 -1 -1 -1`;

const errorOf = (fn: () => unknown): IrisError => refusal(fn);

describe('parseSwf', () => {
  it('reads jobs in file order, skipping comments and blank lines', () => {
    const text = [
      '; Version: 2',
      '; MaxProcs: 128',
      '; MaxNodes: 64',
      '',
      line(1, 0, 100, 4, 8, 3600, 7),
      '   ',
      '; a comment between jobs',
      line(2, 5, 30, 16, -1, -1, 3),
    ].join('\n');
    const { jobs, maxProcs } = parseSwf(text, 'small.swf');
    expect(maxProcs).toBe(128);
    expect(jobs).toEqual<SwfJob[]>([
      { id: 1, submit: 0, run: 100, procs: 8, requestedTime: 3600, index: 0, user: 7, app: -1, requestGiven: true },
      { id: 2, submit: 5, run: 30, procs: 16, requestedTime: 30, index: 1, user: 3, app: -1, requestGiven: false },
    ]);
  });

  it('takes the larger of allocated and requested processors', () => {
    const { jobs } = parseSwf([line(1, 0, 10, 32, 4, 60), line(2, 0, 10, -1, 12, 60)].join('\n'));
    expect(jobs.map((j) => j.procs)).toEqual([32, 12]);
  });

  it('uses the run time as the estimate when the requested time is -1, and keeps odd values as read', () => {
    const { jobs } = parseSwf(
      [line(1, 0, 42, 1, 1, -1), line(2, 1, 0, 1, 1, -1), line(3, 2, -1, -1, -1, -1)].join('\n'),
    );
    expect(jobs.map((j) => [j.run, j.requestedTime, j.procs])).toEqual([
      [42, 42, 1],
      [0, 0, 1],
      [-1, -1, -1],
    ]);
  });

  it('falls back to MaxNodes when MaxProcs is absent or 0, and gives null without either', () => {
    expect(parseSwf(`; MaxNodes: 256\n${line(1, 0, 1, 1, 1, 1)}`).maxProcs).toBe(256);
    expect(parseSwf(`; MaxProcs: 0\n; MaxNodes: 64\n${line(1, 0, 1, 1, 1, 1)}`).maxProcs).toBe(64);
    expect(parseSwf(line(1, 0, 1, 1, 1, 1)).maxProcs).toBeNull();
  });

  it('accepts CRLF line ends, tabs and fractional times', () => {
    const text = `; MaxProcs: 8\r\n1\t0.5\t-1\t12.25\t2\t-1\t-1\t2\t20\r\n`;
    const { jobs } = parseSwf(text);
    expect(jobs).toEqual([
      { id: 1, submit: 0.5, run: 12.25, procs: 2, requestedTime: 20, index: 0, user: -1, app: -1, requestGiven: true },
    ]);
  });

  it('names the source and line of a line with too few fields', () => {
    const err = errorOf(() => parseSwf(`; header\n${line(1, 0, 1, 1, 1, 1)}\n2 5 -1 10`, 'my.swf'));
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toBe('my.swf:3: expected at least 9 fields (SWF has 18), found 4');
  });

  it('names the field that is not a number', () => {
    const err = errorOf(() => parseSwf('1 0 -1 ten 1 -1 -1 1 -1', 'x.swf'));
    expect(err.message).toBe('x.swf:1: field 4 is "ten", not a number');
    expect(err.hint).toMatch(/-1 means unknown/);
  });
});

describe('readSwf', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iris-swf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file and reports errors with its path', async () => {
    const path = join(dir, 'ok.swf');
    writeFileSync(path, `; MaxProcs: 4\n${line(1, 0, 10, 2, 2, 20)}\n`);
    const trace = await readSwf(path);
    expect(trace.maxProcs).toBe(4);
    expect(trace.jobs).toHaveLength(1);

    const bad = join(dir, 'bad.swf');
    writeFileSync(bad, `${line(1, 0, 10, 2, 2, 20)}\n1 2 3\n`);
    await expect(readSwf(bad)).rejects.toThrow(`${bad}:2: expected at least 9 fields`);
  });

  it('a missing file is not_found, not a stack trace', async () => {
    const missing = join(dir, 'nope.swf');
    await expect(readSwf(missing)).rejects.toMatchObject({
      code: 'not_found',
      message: `trace file ${missing} does not exist`,
    });
  });
});

describe('usableSwfJobs', () => {
  it('skips unknown run times, missing processor counts and jobs wider than the machine', () => {
    const { jobs } = parseSwf(
      [
        line(1, 0, 10, 2, 2, 20),
        line(2, 0, -1, 2, 2, 20),
        line(3, 0, 10, -1, -1, 20),
        line(4, 0, 10, 9, 9, 20),
        line(5, 0, 0, 8, 8, 5),
      ].join('\n'),
    );
    const usable = usableSwfJobs(jobs, 8);
    expect(usable.jobs.map((j) => j.id)).toEqual([1, 5]);
    expect(usable.skipped.map((s) => [s.job.id, s.reason])).toEqual([
      [2, 'unknown-run-time'],
      [3, 'no-processors'],
      [4, 'wider-than-machine'],
    ]);
  });
});

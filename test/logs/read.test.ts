import { appendFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLines } from '../../src/logs/format.js';
import { followLines, readLines, splitLines, type LogRecord } from './read.js';
import { LogSource, tailStart } from '../../src/logs/scan.js';
import { MAX_BATCH_TEXT, mergeSources } from '../../src/logs/merge.js';

let dir = '';
let n = 0;
const file = (): string => join(dir, `r-${++n}.log`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-read-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const rec = (time: number, text: string, stream: 'stdout' | 'stderr' = 'stdout'): LogRecord => ({ time, stream, text });
const tag = (r: LogRecord): 'o' | 'e' => (r.stream === 'stdout' ? 'o' : 'e');
/** The records as LogWriter writes them: a time line wherever the time changes. */
const body = (recs: LogRecord[]): string =>
  recs
    .map((r, i) =>
      i > 0 && recs[i - 1]!.time === r.time ? `${tag(r)}${r.text}\n` : formatLines(r.time, tag(r), [r.text]),
    )
    .join('');
/** The records in the format before time lines (`<time> <o|e> <text>`), which files of earlier clusters hold. */
const oldBody = (recs: LogRecord[]): string => recs.map((r) => `${r.time} ${tag(r)} ${r.text}\n`).join('');

/** Collects from an iterator until `count` items arrived (bounded by the signal). */
async function take<T>(it: AsyncIterator<T>, count: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < count) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

/** Every record a source gives until its end. */
async function drain(source: LogSource): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for (let segs = await source.next(); segs !== null; segs = await source.next()) {
    for (const seg of segs)
      for (const text of splitLines(seg.text, seg.count)) out.push(rec(seg.time, text, seg.stream));
  }
  return out;
}

describe.each([
  ['time lines', body],
  ['the earlier format', oldBody],
])('readLines of a file in %s', (_name, write) => {
  const recs = Array.from({ length: 100 }, (_, i) =>
    rec(1000 + Math.floor(i / 2), `line ${i}`, i % 3 === 0 ? 'stderr' : 'stdout'),
  );
  let path = '';
  beforeAll(async () => {
    path = file();
    await writeFile(path, write(recs) + 'garbage line\n' + write([rec(9999, 'unfinished')]).replace(/\n$/, ''));
  });

  it('returns complete, well-formed lines only', async () => {
    expect(await readLines(path)).toEqual(recs);
  });
  it('reads a missing file as empty', async () => {
    expect(await readLines(join(dir, 'nope.log'))).toEqual([]);
  });
  it('filters by since', async () => {
    expect(await readLines(path, { since: 1045 })).toEqual(recs.slice(90));
  });
  it('returns the last N lines', async () => {
    expect(await readLines(path, { tail: 3 })).toEqual(recs.slice(97));
    expect(await readLines(path, { tail: 1000 })).toEqual(recs);
    expect(await readLines(path, { tail: 0 })).toEqual([]);
  });
  it('combines tail and since', async () => {
    expect(await readLines(path, { since: 1049, tail: 5 })).toEqual(recs.slice(98));
    expect(await readLines(path, { since: 1010, tail: 2 })).toEqual(recs.slice(98));
  });
  it('tails big files across many blocks, matching a full read', async () => {
    const big = file();
    const many = Array.from({ length: 60_000 }, (_, i) => rec(Math.floor(i / 3), `${i} ${'z'.repeat(i % 97)}`));
    await writeFile(big, write(many));
    for (const tail of [1, 7, 5000, 59_999, 60_000]) {
      expect(await readLines(big, { tail })).toEqual(many.slice(many.length - tail));
    }
  });
});

describe('the format with time lines', () => {
  it('a time line gives its time to every line after it, even blocks later', async () => {
    const p = file();
    // One time line, then ~3 MB of lines: the time is far behind the last lines.
    const lines = Array.from({ length: 100_000 }, (_, i) => `${i} ${'w'.repeat(20)}`);
    await writeFile(p, formatLines(42, 'o', lines));
    expect(await readLines(p, { tail: 3 })).toEqual(lines.slice(-3).map((t) => rec(42, t)));
    expect(await readLines(p, { tail: 2, since: 42 })).toEqual(lines.slice(-2).map((t) => rec(42, t)));
    expect(await readLines(p, { tail: 2, since: 43 })).toEqual([]);
    const start = await tailStart(p, 3);
    expect(start).toMatchObject({ offset: 0, count: 100_000 });
  });

  it('notes appended between write batches keep the times of the lines around them', async () => {
    const p = file();
    await writeFile(p, formatLines(10, 'o', ['a', 'b']) + formatLines(99, 'e', ['note']) + formatLines(11, 'o', ['c']));
    expect(await readLines(p)).toEqual([rec(10, 'a'), rec(10, 'b'), rec(99, 'note', 'stderr'), rec(11, 'c')]);
    expect(await readLines(p, { tail: 2 })).toEqual([rec(99, 'note', 'stderr'), rec(11, 'c')]);
  });

  it('reads a file of an earlier cluster with new notes appended', async () => {
    const p = file();
    await writeFile(p, oldBody([rec(1, 'old a'), rec(2, 'old b', 'stderr')]) + formatLines(3, 'e', ['iris: stopped']));
    expect(await readLines(p)).toEqual([rec(1, 'old a'), rec(2, 'old b', 'stderr'), rec(3, 'iris: stopped', 'stderr')]);
    expect(await readLines(p, { tail: 2 })).toEqual([rec(2, 'old b', 'stderr'), rec(3, 'iris: stopped', 'stderr')]);
  });

  it('lines before any time line have time 0; unparsable time lines are skipped', async () => {
    const p = file();
    await writeFile(p, 'oearly\ntxyz\n\nt5\nolate\n');
    expect(await readLines(p)).toEqual([rec(0, 'early'), rec(5, 'late')]);
    expect(await readLines(p, { since: 1 })).toEqual([rec(5, 'late')]);
  });

  it('reads lines up to the longest the writer makes across small blocks, and skips longer foreign ones', async () => {
    const p = file();
    const long = 'q'.repeat(60_000);
    await writeFile(p, body([rec(1, 'a'), rec(2, long), rec(3, 'b')]));
    expect(
      (await drain(new LogSource(p, { offset: 0, time: 0 }, { blockBytes: 16 * 1024 }))).map((r) => r.text.length),
    ).toEqual([1, 60_000, 1]);
    expect((await readLines(p, { tail: 2 })).map((r) => r.text.length)).toEqual([60_000, 1]);
    const foreign = file();
    await writeFile(foreign, body([rec(1, 'a'), rec(2, 'q'.repeat(600_000)), rec(3, 'b')]));
    expect((await readLines(foreign)).map((r) => r.text)).toEqual(['a', 'b']);
    expect((await readLines(foreign, { tail: 1 })).map((r) => r.text)).toEqual(['b']);
  });

  it('property: tail/since agree with filtering a full read, whatever the times and time lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.nat(50),
            fc.string({ maxLength: 20 }).map((s) => s.replace(/\n/g, ' ')),
            fc.boolean(),
            fc.boolean(),
          ),
          { maxLength: 60 },
        ),
        fc.option(fc.nat(70), { nil: undefined }),
        fc.option(fc.nat(400), { nil: undefined }),
        async (rows, tail, since) => {
          const p = file();
          // Times go up and down (notes); an extra time line may repeat the current time.
          const all = rows.map(([time, text, err]) => rec(time * 8, text, err ? 'stderr' : 'stdout'));
          const text = all
            .map((r, i) =>
              i > 0 && all[i - 1]!.time === r.time && !rows[i]![3]
                ? `${tag(r)}${r.text}\n`
                : formatLines(r.time, tag(r), [r.text]),
            )
            .join('');
          await writeFile(p, text);
          let expected = since === undefined ? all : all.filter((r) => r.time >= since);
          if (tail !== undefined) expected = tail === 0 ? [] : expected.slice(Math.max(0, expected.length - tail));
          expect(await readLines(p, { tail, since })).toEqual(expected);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('LogSource', () => {
  it('reads complete lines from a position and says where to go on', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(2, 'b')]) + 'ohal');
    const first = new LogSource(p, { offset: 0, time: 0 });
    expect(await drain(first)).toEqual([rec(1, 'a'), rec(2, 'b')]);
    await appendFile(p, 'f\n' + body([rec(4, 'd')]));
    const second = new LogSource(p, first.position);
    expect(await drain(second)).toEqual([rec(2, 'half'), rec(4, 'd')]);
    expect(await drain(new LogSource(p, second.position))).toEqual([]);
  });

  it('filters by time, reads a missing file as empty and a shrunk file from its start', async () => {
    const p = file();
    const missing = new LogSource(p, { offset: 7, time: 0 });
    expect(await drain(missing)).toEqual([]);
    expect(missing.position.offset).toBe(7);
    await writeFile(p, body([rec(1, 'a'), rec(5, 'b')]));
    const all = new LogSource(p, { offset: 0, time: 0 }, { since: 3 });
    expect(await drain(all)).toEqual([rec(5, 'b')]);
    await truncate(p, 0);
    await appendFile(p, body([rec(6, 'n')]));
    expect(await drain(new LogSource(p, all.position))).toEqual([rec(6, 'n')]);
  });

  it('with partial, returns a trailing line without its newline', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a')]) + 't2\necut');
    const source = new LogSource(p, { offset: 0, time: 0 }, { partial: true });
    expect(await drain(source)).toEqual([rec(1, 'a'), rec(2, 'cut', 'stderr')]);
    expect(await drain(new LogSource(p, source.position, { partial: true }))).toEqual([]);
  });

  it('reads no further than the end it was given, one block at a time', async () => {
    const p = file();
    const recs = Array.from({ length: 5000 }, (_, i) => rec(i, `${i} ${'v'.repeat(30)}`));
    await writeFile(p, body(recs));
    const source = new LogSource(p, { offset: 0, time: 0 }, { blockBytes: 16 * 1024 });
    const first = (await source.next())!;
    expect(first.length).toBeGreaterThan(0);
    expect(source.position.offset).toBeLessThanOrEqual(16 * 1024);
    await source.close();
    const bounded = new LogSource(p, { offset: 0, time: 0 }, { end: Buffer.byteLength(body(recs.slice(0, 10))) });
    await appendFile(p, body([rec(9999, 'later')]));
    expect(await drain(bounded)).toEqual(recs.slice(0, 10));
  });
});

describe('followLines', () => {
  it('yields existing lines, then lines appended later', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(2, 'b')]));
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { pollMs: 20 });
    expect(await take(it, 2)).toEqual([rec(1, 'a'), rec(2, 'b')]);
    await appendFile(p, body([rec(3, 'c')]) + 't4\nohalf');
    expect(await take(it, 1)).toEqual([rec(3, 'c')]);
    await appendFile(p, ' done\n');
    expect(await take(it, 1)).toEqual([rec(4, 'half done')]);
    ac.abort();
    expect((await it.next()).done).toBe(true);
  });

  it('waits for a file that does not exist yet', async () => {
    const p = file();
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { pollMs: 20 });
    const first = take(it, 1);
    await writeFile(p, body([rec(9, 'late')]));
    expect(await first).toEqual([rec(9, 'late')]);
    ac.abort();
  });

  it('starts from the last N lines, or only new ones with tail 0', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(2, 'b'), rec(3, 'c')]));
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { tail: 1, pollMs: 20 });
    expect(await take(it, 1)).toEqual([rec(3, 'c')]);
    let started!: () => void;
    const ready = new Promise<void>((r) => (started = r));
    const it0 = followLines(p, ac.signal, { tail: 0, pollMs: 20, onStart: started });
    const next = take(it0, 1);
    await ready;
    await appendFile(p, body([rec(4, 'd')]));
    expect(await next).toEqual([rec(4, 'd')]);
    expect(await take(it, 1)).toEqual([rec(4, 'd')]);
    ac.abort();
  });

  it('starts at a time with since', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(5, 'b')]));
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { since: 3, pollMs: 20 });
    expect(await take(it, 1)).toEqual([rec(5, 'b')]);
    await appendFile(p, body([rec(6, 'c')]));
    expect(await take(it, 1)).toEqual([rec(6, 'c')]);
    ac.abort();
  });

  it('reads a truncated file again from its start', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'old one'), rec(2, 'old two')]));
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { pollMs: 20 });
    expect(await take(it, 2)).toHaveLength(2);
    await truncate(p, 0);
    await appendFile(p, body([rec(3, 'n')]));
    expect(await take(it, 1)).toEqual([rec(3, 'n')]);
    ac.abort();
  });

  it('ends promptly when aborted while waiting', async () => {
    const p = file();
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { pollMs: 60_000 });
    const next = it.next();
    setImmediate(() => ac.abort());
    expect((await next).done).toBe(true);
  });

  it('is woken by the file changing, not by its poll', async () => {
    const p = file();
    await writeFile(p, '');
    const ac = new AbortController();
    let started!: () => void;
    const ready = new Promise<void>((r) => (started = r));
    const it = followLines(p, ac.signal, { pollMs: 60_000, onStart: started });
    const next = take(it, 1);
    await ready;
    await new Promise((r) => setTimeout(r, 20));
    await appendFile(p, body([rec(7, 'woken')]));
    expect(await next).toEqual([rec(7, 'woken')]);
    ac.abort();
  });
});

describe('mergeSources', () => {
  async function merged(files: LogRecord[][], skip = 0): Promise<Array<LogRecord & { source: number }>> {
    const paths: string[] = [];
    for (const recs of files) {
      const p = file();
      await writeFile(p, body(recs));
      paths.push(p);
    }
    const out: Array<LogRecord & { source: number }> = [];
    const sources = paths.map((p) => new LogSource(p, { offset: 0, time: 0 }, { blockBytes: 16 * 1024 }));
    for await (const batch of mergeSources(sources, { skip })) {
      const texts = splitLines(batch.text, batch.count);
      let k = 0;
      for (let r = 0; r < batch.times.length; r += 2) {
        for (let c = 0; c < batch.times[r + 1]!; c++)
          out.push({ ...rec(batch.times[r]!, texts[k++]!, batch.stream), source: batch.source });
      }
    }
    return out;
  }

  it('is sorted by time and stable across files', async () => {
    const a = [rec(1, 'a1'), rec(3, 'a3'), rec(3, 'a3b')];
    const b = [rec(1, 'b1'), rec(2, 'b2'), rec(3, 'b3')];
    expect((await merged([a, [], b])).map((r) => r.text)).toEqual(['a1', 'b1', 'b2', 'a3', 'a3b', 'b3']);
    expect((await merged([a, [], b], 4)).map((r) => r.text)).toEqual(['a3b', 'b3']);
  });

  it('property: equals a stable sort of the concatenation, also with a skip', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.nat(20), { maxLength: 30 }), { maxLength: 6 }),
        fc.nat(40),
        async (raw, skip) => {
          const lists = raw.map((times, li) =>
            [...times].sort((x, y) => x - y).map((t, i) => rec(t, `${li}:${i}`, i % 2 ? 'stderr' : 'stdout')),
          );
          const expected = lists
            .flatMap((l) => l)
            .sort((x, y) => x.time - y.time || Number(x.text.split(':')[0]) - Number(y.text.split(':')[0]));
          expect((await merged(lists, skip)).map((x) => x.text)).toEqual(expected.slice(skip).map((x) => x.text));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('closes its files when the consumer stops early', async () => {
    const p = file();
    await writeFile(p, body(Array.from({ length: 300_000 }, (_, i) => rec(i, `line ${i}`))));
    const source = new LogSource(p, { offset: 0, time: 0 }, { blockBytes: 16 * 1024 });
    for await (const batch of mergeSources([source])) {
      expect(batch.count).toBeGreaterThan(0);
      break;
    }
    // Closed: a read after the end gives nothing, and it read about one batch of the ~5 MB file.
    expect(source.position.offset).toBeLessThan(MAX_BATCH_TEXT * 3);
    expect(await source.next()).toBeNull();
  });
});

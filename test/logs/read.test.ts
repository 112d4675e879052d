import { appendFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLine } from '../../src/logs/format.js';
import {
  followLines,
  mergeByTime,
  parseLine,
  readFrom,
  readLines,
  type LogRecord,
} from '../../src/logs/read.js';

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
const body = (recs: LogRecord[]): string => recs.map((r) => formatLine(r.time, r.stream === 'stdout' ? 'o' : 'e', r.text)).join('');

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

describe('parseLine', () => {
  it('parses both streams, empty text and text with spaces', () => {
    expect(parseLine('12 o hello world')).toEqual(rec(12, 'hello world'));
    expect(parseLine('12 e ')).toEqual(rec(12, '', 'stderr'));
    expect(parseLine('12 o  lead')).toEqual(rec(12, ' lead'));
  });
  it('rejects lines not in the format', () => {
    for (const bad of ['', 'x o a', '12 x a', '12 o', '12  o a', '-1 o a', '12 oa']) expect(parseLine(bad)).toBeNull();
  });
});

describe('readLines', () => {
  const recs = Array.from({ length: 100 }, (_, i) => rec(1000 + i, `line ${i}`, i % 3 === 0 ? 'stderr' : 'stdout'));
  let path = '';
  beforeAll(async () => {
    path = file();
    await writeFile(path, body(recs) + 'garbage line\n' + '9999 o unfinished');
  });

  it('returns complete, well-formed lines only', async () => {
    expect(await readLines(path)).toEqual(recs);
  });
  it('reads a missing file as empty', async () => {
    expect(await readLines(join(dir, 'nope.log'))).toEqual([]);
  });
  it('filters by since', async () => {
    expect(await readLines(path, { since: 1095 })).toEqual(recs.slice(95));
  });
  it('returns the last N lines', async () => {
    expect(await readLines(path, { tail: 3 })).toEqual(recs.slice(97));
    expect(await readLines(path, { tail: 1000 })).toEqual(recs);
    expect(await readLines(path, { tail: 0 })).toEqual([]);
  });
  it('combines tail and since', async () => {
    expect(await readLines(path, { since: 1098, tail: 5 })).toEqual(recs.slice(98));
    expect(await readLines(path, { since: 1010, tail: 2 })).toEqual(recs.slice(98));
  });

  it('tails big files across many blocks, matching a full read', async () => {
    const big = file();
    const many = Array.from({ length: 60_000 }, (_, i) => rec(i, `${i} ${'z'.repeat(i % 97)}`));
    await writeFile(big, body(many));
    for (const tail of [1, 7, 5000, 59_999, 60_000]) {
      expect(await readLines(big, { tail })).toEqual(many.slice(many.length - tail));
    }
  });

  it('handles a line longer than the read block', async () => {
    const p = file();
    const long = 'q'.repeat(600_000);
    await writeFile(p, body([rec(1, 'a'), rec(2, long), rec(3, 'b')]));
    expect((await readLines(p)).map((r) => r.text.length)).toEqual([1, 600_000, 1]);
    expect((await readLines(p, { tail: 2 })).map((r) => r.text.length)).toEqual([600_000, 1]);
  });

  it('property: tail/since agree with filtering a full read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(50), fc.string({ maxLength: 20 }).map((s) => s.replace(/\n/g, ' '))), { maxLength: 60 }),
        fc.option(fc.nat(70), { nil: undefined }),
        fc.option(fc.nat(60), { nil: undefined }),
        async (rows, tail, since) => {
          const p = file();
          let t = 0;
          const all = rows.map(([dt, text]) => rec((t += dt), text));
          await writeFile(p, body(all));
          let expected = since === undefined ? all : all.filter((r) => r.time >= since);
          if (tail !== undefined) expected = tail === 0 ? [] : expected.slice(Math.max(0, expected.length - tail));
          expect(await readLines(p, { tail, since })).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('followLines', () => {
  it('yields existing lines, then lines appended later', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(2, 'b')]));
    const ac = new AbortController();
    const it = followLines(p, ac.signal, { pollMs: 20 });
    expect(await take(it, 2)).toEqual([rec(1, 'a'), rec(2, 'b')]);
    await appendFile(p, body([rec(3, 'c')]) + '4 o half');
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

describe('merging', () => {
  it('mergeByTime is sorted and stable across lists', () => {
    const a = [rec(1, 'a1'), rec(3, 'a3'), rec(3, 'a3b')];
    const b = [rec(1, 'b1'), rec(2, 'b2'), rec(3, 'b3')];
    expect(mergeByTime([a, [], b]).map((r) => r.text)).toEqual(['a1', 'b1', 'b2', 'a3', 'a3b', 'b3']);
  });

  it('property: mergeByTime equals a stable sort of the concatenation', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(20), { maxLength: 30 }), { maxLength: 8 }), (raw) => {
        const lists = raw.map((times, li) => [...times].sort((x, y) => x - y).map((t, i) => ({ time: t, id: `${li}:${i}` })));
        const expected = lists.flatMap((l, li) => l.map((x) => ({ ...x, li }))).sort((x, y) => x.time - y.time || x.li - y.li);
        expect(mergeByTime(lists).map((x) => x.id)).toEqual(expected.map((x) => x.id));
      }),
    );
  });
});

describe('readFrom', () => {
  it('reads complete lines from an offset and says where to go on', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a'), rec(2, 'b')]) + '3 o hal');
    const first = await readFrom(p, 0);
    expect(first.records).toEqual([rec(1, 'a'), rec(2, 'b')]);
    await appendFile(p, 'f\n' + body([rec(4, 'd')]));
    const second = await readFrom(p, first.end);
    expect(second.records).toEqual([rec(3, 'half'), rec(4, 'd')]);
    expect(await readFrom(p, second.end)).toEqual({ records: [], end: second.end });
  });

  it('filters by time, reads a missing file as empty and a shrunk file from its start', async () => {
    const p = file();
    expect(await readFrom(p, 7)).toEqual({ records: [], end: 7 });
    await writeFile(p, body([rec(1, 'a'), rec(5, 'b')]));
    const all = await readFrom(p, 0, { since: 3 });
    expect(all.records).toEqual([rec(5, 'b')]);
    await truncate(p, 0);
    await appendFile(p, body([rec(6, 'n')]));
    expect((await readFrom(p, all.end)).records).toEqual([rec(6, 'n')]);
  });

  it('with partial, returns a trailing line without its newline', async () => {
    const p = file();
    await writeFile(p, body([rec(1, 'a')]) + '2 e cut');
    const chunk = await readFrom(p, 0, { partial: true });
    expect(chunk.records).toEqual([rec(1, 'a'), rec(2, 'cut', 'stderr')]);
    expect(await readFrom(p, chunk.end, { partial: true })).toEqual({ records: [], end: chunk.end });
  });
});

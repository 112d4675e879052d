import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ndjson } from '../../src/web/ndjson.js';

async function* chunks(parts: Uint8Array[]) {
  for (const part of parts) yield part;
}

async function read(parts: Uint8Array[]) {
  const out: unknown[] = [];
  for await (const item of ndjson(chunks(parts))) out.push(item);
  return out;
}

describe('ndjson', () => {
  it('parses lines across chunk boundaries, skipping blank ones, with a last line without newline', async () => {
    const text = '{"a":1}\n\n{"b":"é"}\n{"c":3}';
    const bytes = new TextEncoder().encode(text);
    expect(await read([bytes.slice(0, 3), bytes.slice(3, 13), bytes.slice(13)])).toEqual([
      { a: 1 },
      { b: 'é' },
      { c: 3 },
    ]);
  });

  it('gives the same items whatever the chunk boundaries (property)', async () => {
    const items = [{ t: 'ünïcødé ✓' }, { n: 42 }, { s: 'a\\nb' }, { e: [] }];
    const bytes = new TextEncoder().encode(`${items.map((i) => JSON.stringify(i)).join('\n')}\n`);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 10 }),
        async (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), bytes.length];
          const parts = points.slice(1).map((end, i) => bytes.slice(points[i], end));
          expect(await read(parts)).toEqual(items);
        },
      ),
    );
  });

  it('throws on a line that is not JSON', async () => {
    await expect(read([new TextEncoder().encode('{"a":1}\nnot json\n')])).rejects.toThrow();
  });
});

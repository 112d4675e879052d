import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DECIMAL, MAX_CPU_CORES, formatBytes, parseCpu, parseGpu, parseMemory } from '../../src/model/resources.js';
import { MAX_ECHOED_CHARS, describeValue } from '../../src/model/errors.js';
import { formatMemory } from '../../src/ui/format.js';

describe('byte sizes: one parser, one formatter', () => {
  it.each([
    [512, '512B'],
    [256 * 1024 ** 2, '256MiB'],
    [1.5 * 1024 ** 3, '1.5GiB'],
    [2 * 1024 ** 4, '2TiB'],
  ])('%d -> %s, and back', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
    expect(parseMemory(text)).toBe(bytes);
  });

  it('the ui prints memory as the model does', () => {
    expect(formatMemory(8 * 1024 ** 3)).toBe(formatBytes(8 * 1024 ** 3));
  });

  it('trimZero drops a fraction that rounds to .0 (the Docker runtime notes)', () => {
    const almost = 1024 ** 3 + 1024;
    expect(formatBytes(almost)).toBe('1.0GiB');
    expect(formatBytes(almost, { trimZero: true })).toBe('1GiB');
  });

  it('plain K/M/G are powers of 1024; KB/MB/GB powers of 1000', () => {
    expect(parseMemory('512M')).toBe(512 * 1024 ** 2);
    expect(parseMemory('1GB')).toBe(1e9);
    expect(() => parseMemory('lots')).toThrow('invalid memory "lots": expected a size such as 512M, 4GiB or 2G');
  });
});

describe('cpu and counts stay finite and exact', () => {
  it('parseCpu refuses what no machine has, instead of Infinity', () => {
    expect(() => parseCpu('99999999999')).toThrow(/at most 1000000 cores/);
    expect(() => parseCpu(1e308)).toThrow(/at most 1000000 cores/);
    expect(parseCpu(MAX_CPU_CORES)).toBe(MAX_CPU_CORES * 1000);
  });

  it('parseMemory and parseGpu refuse sizes and counts past exact integers', () => {
    expect(() => parseMemory(1e300)).toThrow(/too large/);
    expect(() => parseMemory('99999999999999999T')).toThrow(/too large/);
    expect(() => parseGpu('99999999999999999999')).toThrow(/too large/);
    expect(() => parseGpu('H100x99999999999999999999')).toThrow(/too large/);
  });
});

describe('describeValue: one place that cuts echoed values', () => {
  it('echoes short text whole and cuts long text with its length', () => {
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue('y'.repeat(MAX_ECHOED_CHARS))).toBe(`"${'y'.repeat(MAX_ECHOED_CHARS)}"`);
    const cut = describeValue('z'.repeat(10_000));
    expect(cut).toBe(`"${'z'.repeat(MAX_ECHOED_CHARS - 16)}…" (10000 characters)`);
  });
});

describe('numbers as text are plain decimals (issue 28)', () => {
  it.each([
    ['2', 2000],
    ['0.5', 500],
    ['.25', 250],
    [' 12 ', 12_000],
    ['0.001', 1],
    ['1000000', 1_000_000_000],
  ])('parseCpu(%j) is %i millicores', (text, millis) => {
    expect(parseCpu(text)).toBe(millis);
  });

  it.each([
    '0x10',
    '1e3',
    '1E3',
    'Infinity',
    '-Infinity',
    '+2',
    '-1',
    '0b11',
    '0o7',
    '',
    ' ',
    '1.',
    '1,5',
    '2 cores',
    'NaN',
    '½',
  ])('parseCpu(%j) is refused, not read as Number() would', (text) => {
    expect(() => parseCpu(text)).toThrow(
      /^invalid cpu .*: expected a positive decimal number of cores such as 0\.5 or 2$/,
    );
  });

  it('a JSON number is taken as it is (finite, positive)', () => {
    expect(parseCpu(16)).toBe(16_000);
    expect(parseCpu(1e3)).toBe(1_000_000);
    expect(() => parseCpu(Infinity)).toThrow(/expected a positive decimal number/);
    expect(() => parseCpu(Number.NaN)).toThrow(/expected a positive decimal number/);
  });

  it('any text parseCpu takes is DECIMAL, and means what it says', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let millis: number | null = null;
        try {
          millis = parseCpu(text);
        } catch {
          // refused
        }
        if (millis !== null) {
          expect(DECIMAL.test(text)).toBe(true);
          expect(millis).toBe(Math.round(Number(text.trim()) * 1000));
        }
      }),
    );
  });

  it.each(['0x10', '1e3', 'Infinity', '-1', ''])('parseMemory(%j) is refused', (text) => {
    expect(() => parseMemory(text)).toThrow(/^invalid memory /);
  });
});

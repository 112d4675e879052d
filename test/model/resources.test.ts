import { describe, expect, it } from 'vitest';
import { formatBytes, parseMemory } from '../../src/model/resources.js';
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

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { escapeControl, formatAge, formatCores, formatDuration } from '../../src/ui/format.js';
import { jsonText } from '../../src/ui/json.js';
import { NOW } from './fixtures.js';

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [850, '850ms'],
    [12_300, '12s'],
    [245_000, '4m05s'],
    [2 * 3_600_000 + 3 * 60_000, '2h03m'],
    [3 * 86_400_000 + 4 * 3_600_000, '3d4h'],
    [-1, '-'],
  ])('%d ms -> %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it('ages are relative to now and unknown times are a dash', () => {
    expect(formatAge(NOW - 5_000, NOW)).toBe('5s');
    expect(formatAge(null, NOW)).toBe('-');
    expect(formatAge(NOW + 5_000, NOW)).toBe('0ms');
  });

  it('formats cores without float noise', () => {
    expect(formatCores(500)).toBe('0.5');
    expect(formatCores(2000)).toBe('2');
    expect(formatCores(1250)).toBe('1.25');
  });
});

describe('escapeControl', () => {
  it('shows C0, DEL and C1 controls instead of passing them to the terminal', () => {
    expect(escapeControl('plain text, é, 漢字, a\\b')).toBe('plain text, é, 漢字, a\\b');
    expect(escapeControl('\u001b[2J\u001b]0;pwned\u0007')).toBe('\\x1b[2J\\x1b]0;pwned\\x07');
    expect(escapeControl('a\nb\tc\rd')).toBe('a\\nb\\tc\\rd');
    expect(escapeControl('\u0000\u007f\u0080\u009b31m\u009f')).toBe('\\x00\\x7f\\x80\\x9b31m\\x9f');
  });

  it('leaves no control character in any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(escapeControl(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
    );
  });
});

describe('--json text escapes every control character', () => {
  it('C0 by JSON.stringify, DEL and C1 too; the values read back unchanged', () => {
    const value = { v: '\u001b[2J\u007f\u009b31m\u0085é' };
    const text = jsonText(value, { indent: 2 });
    expect(text).toContain('"\\u001b[2J\\u007f\\u009b31m\\u0085é"');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/); // newlines of the indent only
    expect(JSON.parse(text)).toEqual(value);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkResultCount,
  checkResultKey,
  checkResultValue,
  MAX_RESULT_VALUE_BYTES,
  parseResultFile,
} from '../../src/model/results.js';
import { refusal } from '../helpers/refusal.js';

describe('result keys', () => {
  it.each(['checkpoint', 'eval.loss', 'a', 'A-1_b.c', '0step', 'k'.repeat(128)])('accepts %s', (key) => {
    expect(checkResultKey('key', key)).toBe(key);
  });

  it.each([
    ['', 'empty'],
    ['k'.repeat(129), '129 characters long, more than 128'],
    ['.hidden', 'has characters other than'],
    ['-flag', 'has characters other than'],
    ['a/b', 'has characters other than'],
    ['a b', 'has characters other than'],
    ['clé', 'has characters other than'],
    ['${x}', 'has characters other than'],
  ])('refuses %j (%s), naming the argument, with a hint and exit 2', (key, words) => {
    const error = refusal(() => checkResultKey('KEY', key));
    expect(error.code).toBe('invalid_argument');
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/^KEY: /);
    expect(error.message).toContain(words);
    expect(error.hint).toContain('letters, digits');
  });

  it('refuses a key that is not a string', () => {
    expect(refusal(() => checkResultKey('key', 3)).message).toBe('key: a result key must be a string');
  });
});

describe('result values', () => {
  it('accepts strings up to 64 KiB of UTF-8, the empty one included', () => {
    expect(checkResultValue('value', '')).toBe('');
    const max = 'x'.repeat(MAX_RESULT_VALUE_BYTES);
    expect(checkResultValue('value', max)).toBe(max);
  });

  it('counts bytes, not characters', () => {
    const error = refusal(() => checkResultValue('VALUE', 'é'.repeat(MAX_RESULT_VALUE_BYTES / 2 + 1)));
    expect(error.message).toBe(
      `VALUE: the result value is ${MAX_RESULT_VALUE_BYTES + 2} bytes, more than 65536 (64 KiB)`,
    );
    expect(error.hint).toContain('file');
  });

  it.each([
    [1, 'number'],
    [null, 'null'],
    [[], 'an array'],
    [{}, 'object'],
    [true, 'boolean'],
  ])('refuses %j', (value, got) => {
    expect(refusal(() => checkResultValue('value', value)).message).toBe(
      `value: a result value must be a string, got ${got}`,
    );
  });
});

describe('a NUL character in a value', () => {
  it('is refused, by `iris result set` and in a result file, without quoting the value', () => {
    const set = refusal(() => checkResultValue('VALUE', 'a\u0000; id'));
    expect(set.message).toBe('VALUE: the result value may not contain a NUL character (\\0)');
    const file = refusal(() => parseResultFile(JSON.stringify({ score: 'x\u0000y' })));
    expect(file.message).toContain('result file member "score": the result value may not contain a NUL character');
    expect(file.message).not.toContain('x');
  });
});

describe('key count', () => {
  it('allows 256 keys per attempt, refuses 257', () => {
    expect(() => checkResultCount(256, '/t/task-0')).not.toThrow();
    const error = refusal(() => checkResultCount(257, '/t/task-0'));
    expect(error.message).toBe('task /t/task-0 would hold 257 results, more than 256');
    expect(error.exitCode).toBe(2);
  });
});

describe('result files', () => {
  it('reads one object of key -> string', () => {
    expect(parseResultFile('{"checkpoint": "/ckpt/1", "eval.loss": "0.5"}\n')).toEqual({
      checkpoint: '/ckpt/1',
      'eval.loss': '0.5',
    });
    expect(parseResultFile('{}')).toEqual({});
  });

  it.each([
    ['not json', /^the result file is not valid JSON$/],
    ['{"a": 1,}', /^the result file is not valid JSON \(at character 9\)$/],
    ['{"a": ', /^the result file is not valid JSON \(it ends too early\)$/],
    ['', /^the result file is not valid JSON/],
    ['[1]', /^the result file must hold one JSON object, got an array$/],
    ['"x"', /^the result file must hold one JSON object, got string$/],
    ['null', /^the result file must hold one JSON object, got null$/],
    ['{"n": 1}', /^result file member "n": a result value must be a string, got number$/],
    // An invalid key is named by its place, never quoted (it could be anything the file held).
    ['{"ok": "x", "a b": "x"}', /^result file member 2: its key is not a valid result key$/],
  ])('refuses %j with a message saying what is wrong', (text, message) => {
    const error = refusal(() => parseResultFile(text));
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toMatch(message);
  });
});

describe('result file errors quote nothing of the file', () => {
  it('never repeat text that could not be a valid key (property)', () => {
    // The secret holds `$`, so it can never be a valid key: the one thing an error may name.
    const secret = fc.string({ minLength: 4, maxLength: 20 }).map((s) => `$${s}$`);
    const anyText = fc.string({ maxLength: 40 });
    fc.assert(
      fc.property(anyText, secret, anyText, fc.boolean(), (before, hidden, after, asKey) => {
        const text = asKey ? `{"ok": "v", ${JSON.stringify(hidden)}: ${after}}` : before + hidden + after;
        try {
          parseResultFile(text);
        } catch (error) {
          expect((error as Error).message).not.toContain(hidden);
        }
      }),
      { numRuns: 300 },
    );
  });
});

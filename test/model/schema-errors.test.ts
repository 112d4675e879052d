import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IrisError, invalid } from '../../src/model/errors.js';
import {
  describeValue,
  formatKeyPath,
  issuesToError,
  knownKeysOf,
  parseWith,
  suggestKey,
} from '../../src/model/schema-errors.js';

describe('formatKeyPath', () => {
  it.each([
    [[], ''],
    [['workers', 1, 'memory'], 'workers[1].memory'],
    [['quotas', 'alice', 'cpu'], 'quotas.alice.cpu'],
    [['quotas', 'a b'], 'quotas["a b"]'],
    [['attributes', 'tpu.name'], 'attributes["tpu.name"]'],
    [[0, 'x'], '[0].x'],
  ])('%j -> %s', (keys, text) => expect(formatKeyPath(keys)).toBe(text));
});

describe('suggestKey', () => {
  it('finds likely typos and case or dash variants, nothing for strangers', () => {
    expect(suggestKey('cpus', ['name', 'cpu', 'memory'])).toBe('cpu');
    expect(suggestKey('memroy', ['name', 'cpu', 'memory'])).toBe('memory');
    expect(suggestKey('stopGrace', ['home', 'stop-grace'])).toBe('stop-grace');
    expect(suggestKey('zzzzzz', ['home', 'stop-grace'])).toBeNull();
    expect(suggestKey('x', [])).toBeNull();
  });

  it('counts two swapped neighbours as one edit', () => {
    expect(suggestKey('bathc', ['batch', 'quick'])).toBe('batch');
    expect(suggestKey('qucik', ['batch', 'quick'])).toBe('quick');
    expect(suggestKey('tacbh', ['batch', 'quick'])).toBeNull();
  });
});

describe('describeValue', () => {
  it.each([
    ['lots', '"lots"'],
    [42, '42'],
    [true, 'true'],
    [null, 'null'],
    [undefined, 'undefined'],
    [[1], 'a list'],
    [{ a: 1 }, 'an object'],
  ])('%j -> %s', (value, text) => expect(describeValue(value)).toBe(text));
});

describe('issuesToError', () => {
  const size = parseWith<number, string>((value) => {
    if (value === 'lots') throw invalid('invalid memory "lots": expected a size', 'such as 4GiB');
    return 1;
  });
  const schema = z.strictObject({
    workers: z.array(z.strictObject({ name: z.string(), memory: size.optional() })).optional(),
    mode: z.enum(['fast', 'slow']).optional(),
    gpu: z.union([z.strictObject({ count: z.number({ error: 'bad count' }) }), z.string()]).optional(),
  });
  const errorOf = (raw: unknown, file?: string): IrisError => {
    const result = schema.safeParse(raw, { reportInput: true });
    expect(result.success).toBe(false);
    return issuesToError(result.error!.issues, { file, knownKeys: knownKeysOf(schema) });
  };

  it('starts with the file and the key path; a parser keeps its message and hint', () => {
    const error = errorOf({ workers: [{ name: 'a' }, { name: 'b', memory: 'lots' }] }, '/p/.irisrc.yaml');
    expect(error).toBeInstanceOf(IrisError);
    expect(error.code).toBe('invalid_argument');
    expect(error.message).toBe('/p/.irisrc.yaml: workers[1].memory: invalid memory "lots": expected a size');
    expect(error.hint).toBe('such as 4GiB');
  });

  it('an unknown key names the closest allowed key and lists them all, before other problems of its object', () => {
    const error = errorOf({ workers: [{ nam: 'a' }] });
    expect(error.message).toBe('workers[0].nam: unknown key (did you mean "name"?)');
    expect(error.hint).toBe('allowed keys here: name, memory');
    expect(errorOf({ colour: 1 }).message).toBe('colour: unknown key');
  });

  it('a wrong choice lists the choices; a union reports the branch the value was meant for', () => {
    expect(errorOf({ mode: 'quick' }).hint).toBe('use one of: fast, slow');
    expect(errorOf({ gpu: { count: 'x' } }).message).toBe('gpu.count: bad count');
    expect(errorOf({ gpu: { cont: 1 } }).message).toBe('gpu.cont: unknown key (did you mean "count"?)');
  });

  it("zod's own type messages say what was expected and what came", () => {
    expect(errorOf({ workers: 'all' }).message).toBe('workers: expected array, got "all"');
  });
});

import { describe, expect, it } from 'vitest';
import { flagParseRefusal, typedValue } from '../../src/ui/flag-values.js';
import { valueRefusal } from '../../src/ui/submit-flags.js';

describe('valueRefusal: a cluster refusal of a submit value, in the words of the flag typed', () => {
  it.each([
    [
      'cpu',
      'invalid cpu "abc": expected a positive decimal number of cores such as 0.5 or 2',
      'abc',
      '--cpu abc: not a number of cores',
      'give a number of cores, e.g. --cpu 2 or --cpu 0.5',
    ],
    ['cpu', 'invalid cpu "2000000": at most 1000000 cores', '2000000', '--cpu 2000000: at most 1000000 cores', 'own'],
    [
      'memory',
      'invalid memory "4XB": expected a size such as 512M',
      '4XB',
      '--memory 4XB: not a size',
      'give a size, e.g. --memory 4GiB or --memory 512M',
    ],
    [
      'replicas',
      'replicas must be between 1 and 10000, got 100000',
      100000,
      '--replicas 100000: must be between 1 and 10000',
      'own',
    ],
    [
      'timeLimit',
      'timeLimit: invalid duration "5x"',
      '5x',
      '--time-limit 5x: not a duration',
      'give a duration, e.g. --time-limit 30m or --time-limit 2h',
    ],
    [
      'retryBackoff',
      'retryBackoff: must be longer than 0, got "0s"',
      '0s',
      '--retry-backoff 0s: must be longer than 0',
      'own',
    ],
    ['tpu', 'unknown TPU variant "v9"', 'v9', '--tpu v9: unknown TPU variant', 'own'],
    [
      'cpu',
      'invalid cpu "a b": expected a positive decimal number',
      'a b',
      '--cpu "a b": not a number of cores',
      'give a number of cores, e.g. --cpu 2 or --cpu 0.5',
    ],
  ])('%s %j', (field, message, value, shown, hint) => {
    expect(valueRefusal(field, message, 'own', value)).toEqual({ message: shown, hint });
  });

  it.each([
    ['user', 'invalid user name "a/b"', 'a/b'],
    ['cpu', 'cpu must be a string, got true', true],
    ['cpu', 'something else entirely', 'abc'],
  ])('leaves %s %j to the plain flag naming', (field, message, value) => {
    expect(valueRefusal(field, message, undefined, value)).toBeNull();
  });
});

describe("flagParseRefusal: oclif's refusals of integer and one-of flags", () => {
  it.each([
    [
      '--replicas: Expected an integer but received: abc',
      '--replicas abc: not a whole number',
      'give a number of tasks, e.g. --replicas 4',
    ],
    [
      '--replicas: Expected an integer greater than or equal to 1 but received: 0',
      '--replicas 0: must be 1 or more',
      'give a number of tasks, e.g. --replicas 4',
    ],
    [
      '--tail: Expected an integer less than or equal to 9 but received: 10',
      '--tail 10: must be 9 or less',
      'see --help',
    ],
    [
      'Expected --priority=hi to be one of: production, interactive, batch',
      '--priority hi: not one of production, interactive, batch',
      'e.g. --priority production; see --help',
    ],
  ])('%j', (message, shown, hint) => {
    expect(flagParseRefusal(message, 'see --help')).toEqual({ message: shown, hint });
  });

  it('passes other messages on', () => {
    expect(flagParseRefusal('Missing required flag name', 'x')).toBeNull();
  });

  it('shows a plain word as typed and anything else quoted', () => {
    expect(typedValue('4GiB')).toBe('4GiB');
    expect(typedValue('')).toBe('""');
    expect(typedValue('a b')).toBe('"a b"');
    expect(typedValue(3)).toBe('3');
  });
});

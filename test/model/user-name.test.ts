/** The one rule for a user name (src/model/names.ts USER_NAME): `--user`, a request's `user`, the config's quotas. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { USER_NAME, parseUserName } from '../../src/model/names.js';

describe('user names', () => {
  it.each(['alice', 'bob_2', '_svc', 'john.doe', 'a-b', 'x@corp.example', '1000', 'A'.repeat(64)])(
    '%j is a user name',
    (name) => {
      expect(parseUserName(name)).toBe(name);
    },
  );

  it.each([
    '',
    ' ',
    'a/b',
    '../root',
    'a b',
    ' alice',
    'alice ',
    '-rf',
    '.hidden',
    '@x',
    'a\u0000',
    'a\nb',
    'a\u001b[31m',
    'a:b',
    'a\\b',
    'A'.repeat(65),
  ])('%j is refused with the rule in the hint', (name) => {
    let error: unknown;
    try {
      parseUserName(name);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'invalid_argument',
      hint: expect.stringMatching(/^a user name is 1-64 letters/),
    });
    expect((error as Error).message).toMatch(/^invalid user name /);
  });

  it('never takes a name with a slash, a space or a control character', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        if (USER_NAME.test(name)) expect(/[/\s\u0000-\u001f\u007f]/.test(name)).toBe(false);
      }),
    );
  });
});

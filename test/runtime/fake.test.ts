import { describe, expect, it } from 'vitest';
import { FakeHost } from './fake/process.js';
import { FakeRuntime } from './fake/runtime.js';
import { evalArith, parseScript, ScriptError } from './fake/script.js';
import { runtimeContract } from './contract.js';

// One fake machine for every runtime the suite makes, so reclaim finds what a closed one left.
const host = new FakeHost();
runtimeContract('fake', () => new FakeRuntime({ host }), {
  processGone: async (pid) => !host.isAlive(pid),
  // The fake runs no real program (and no pipes): it reports the usage a test gives it (below).
  skip: ['reports the CPU seconds and peak memory an attempt used'],
});

describe('FakeRuntime script language', () => {
  it('parses sequences, background jobs, loops and redirections', () => {
    const script = parseScript('trap \'\' TERM; sleep 9 & echo "a $N" >&2\nwhile :; do sleep 1; done');
    expect(script.map((s) => [s.command.kind, s.background])).toEqual([
      ['simple', false],
      ['simple', true],
      ['simple', false],
      ['while', false],
    ]);
    expect(script[2]!.command).toMatchObject({ redirects: [{ fd: 1, to: 'e' }] });
  });

  it('refuses what it cannot run instead of guessing', () => {
    expect(() => parseScript('a | b')).toThrow(ScriptError);
    expect(() => parseScript('a && b')).toThrow(ScriptError);
    expect(() => parseScript('echo > file')).toThrow(ScriptError);
    expect(() => parseScript('while :; do sleep 1')).toThrow(ScriptError);
  });

  it('evaluates integer arithmetic with variables', () => {
    expect(evalArith('N % 4', () => '7')).toBe(3);
    expect(evalArith('(1 + 2) * $X - 10 / 3', () => '5')).toBe(12);
  });
});

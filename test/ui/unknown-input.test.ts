import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { suggestCommand } from '../../src/model/suggest.js';
import { unexpectedArguments, unknownCommand, unknownFlags } from '../../src/ui/unknown-input.js';

const COMMANDS = ['submit', 'status', 'cluster', 'cluster start', 'cluster status', 'cluster stop', 'workers', 'jobs'];
const FLAGS = ['--replicas', '--cpu', '--memory', '--name', '--help', '--stream', '--no-stream'];

describe('unknownCommand', () => {
  it('is a usage error naming what was typed, with the closest command', () => {
    const e = unknownCommand('sbumit', COMMANDS, 'iris');
    expect(e.code).toBe('invalid_argument');
    expect(e.message).toBe('unknown command "sbumit"');
    expect(e.hint).toMatch(/^did you mean submit\? /);
  });

  it('compares a topic subcommand with that topic first', () => {
    expect(unknownCommand('cluster stats', COMMANDS, 'iris').hint).toMatch(/^did you mean cluster status\?/);
    expect(unknownCommand('cluster strat', COMMANDS, 'iris').hint).toMatch(/^did you mean cluster start\?/);
  });

  it('guesses nothing when nothing is close, and calls a leading dash a flag', () => {
    expect(unknownCommand('xyzzy', COMMANDS, 'iris').hint).toBe('`iris --help` lists the commands');
    expect(unknownCommand('--jsn=1', COMMANDS, 'iris').message).toBe('unknown flag --jsn');
  });

  it('holds a topic subcommand to the closeness of a top-level command, word by word', () => {
    expect(unknownCommand('cluster bogus', COMMANDS, 'iris').hint).toBe('`iris --help` lists the commands');
    expect(suggestCommand('cluster bogus', COMMANDS)).toBeNull();
    expect(suggestCommand('clustr status', COMMANDS)).toBe('cluster status');
    expect(suggestCommand('cluster-status', COMMANDS)).toBe('cluster status');
    expect(suggestCommand('bogus', COMMANDS)).toBeNull();
  });

  it('a word after a command that takes none is an unexpected argument of it', () => {
    const runnable = ['submit', 'status', 'cluster start', 'cluster status', 'cluster stop', 'workers', 'jobs'];
    const e = unknownCommand('jobs running', COMMANDS, 'iris', runnable);
    expect(e.message).toBe('unexpected argument "running"');
    expect(e.hint).toBe('see `iris jobs --help`');
    expect(unknownCommand('workers w0', COMMANDS, 'iris', runnable).message).toBe('unexpected argument "w0"');
    // A bare topic has no arguments: its unknown word stays an unknown command.
    expect(unknownCommand('cluster bogus', COMMANDS, 'iris', runnable).message).toBe('unknown command "cluster bogus"');
    expect(unexpectedArguments(['a', 'b'], 'iris status --help').message).toBe('unexpected arguments "a", "b"');
  });

  it('suggests the root flags for a mistyped one', () => {
    expect(unknownCommand('--versoin', COMMANDS, 'iris').hint).toBe('did you mean --version? (see `iris --help`)');
    expect(unknownCommand('--zzz', COMMANDS, 'iris').hint).toBe('see `iris --help`');
  });

  it('never suggests a name that is not a command', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (typed) => {
        const hint = unknownCommand(typed, COMMANDS, 'iris').hint ?? '';
        const suggested = /^did you mean (.+?)\? /.exec(hint)?.[1];
        return suggested === undefined || COMMANDS.includes(suggested);
      }),
    );
  });
});

describe('unknownFlags', () => {
  it('names the flag without its value, with the closest long flag', () => {
    const e = unknownFlags(['--replica=4'], FLAGS, 'iris submit --help');
    expect(e.message).toBe('unknown flag --replica');
    expect(e.hint).toBe('did you mean --replicas? (see `iris submit --help`)');
  });

  it('lists several, and suggests nothing for a one-letter flag', () => {
    expect(unknownFlags(['--replica', '--cpus'], FLAGS, 'u').message).toBe('unknown flags --replica, --cpus');
    expect(unknownFlags(['-x'], FLAGS, 'iris submit --help').hint).toBe('see `iris submit --help`');
  });
});

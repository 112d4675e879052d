import { afterEach, describe, expect, it, vi } from 'vitest';
import { Args, Flags } from '@oclif/core';
import { fileURLToPath } from 'node:url';
import { BaseCommand } from '../../src/base-command.js';
import { IrisError } from '../../src/model/errors.js';
import { captureCommand } from '../helpers/capture-command.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

class Boom extends BaseCommand {
  static override id = 'boom';
  static override flags = { kind: Flags.string({ required: true }), count: Flags.integer() };
  async run(): Promise<{ ok: true }> {
    const { flags } = await this.parse(Boom);
    if (flags.kind === 'user') throw new IrisError('not_found', 'job "/x" not found', 'list jobs with `iris jobs`');
    if (flags.kind === 'bug') throw new TypeError('undefined is not a function');
    return { ok: true };
  }
}

class NeedsJob extends BaseCommand {
  static override id = 'needs-job';
  static override args = { job: Args.string({ required: true, description: 'A job.' }) };
  async run(): Promise<void> {
    await this.parse(NeedsJob);
  }
}

const runBoom = (argv: string[]) => captureCommand(() => Boom.run(argv, root));

describe('the one error formatter', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints a user error with its hint and exit code, no stack', async () => {
    const result = await runBoom(['--kind', 'user']);
    expect(result.exit).toBe(3);
    expect(result.stderr).toBe('Error: job "/x" not found\nHint: list jobs with `iris jobs`\n');
    expect(result.stdout).toBe('');
  });

  it('prints the error as JSON on stdout with --json', async () => {
    const result = await runBoom(['--kind', 'user', '--json']);
    expect(result.exit).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'not_found', message: 'job "/x" not found', hint: 'list jobs with `iris jobs`' },
    });
  });

  it('turns flag errors into usage errors (exit 2)', async () => {
    const missing = await runBoom([]);
    expect(missing.exit).toBe(2);
    expect(missing.stderr).toMatch(/^Error: Missing required flag kind\nHint: see `iris boom --help`/);
    const badInt = await runBoom(['--kind', 'x', '--count', 'many']);
    expect(badInt.exit).toBe(2);
    // A value error names the flag and the value as typed (ui/flag-values.ts), not oclif's words.
    expect(badInt.stderr).toContain('Error: --count many: not a whole number');
    const unknown = await runBoom(['--kind', 'x', '--nope']);
    expect(unknown.exit).toBe(2);
    expect(unknown.stderr).toBe('Error: unknown flag --nope\nHint: see `iris boom --help`\n');
    const typo = await runBoom(['--kind', 'x', '--cont', '3']);
    expect(typo.exit).toBe(2);
    expect(typo.stderr).toBe('Error: unknown flag --cont\nHint: did you mean --count? (see `iris boom --help`)\n');
  });

  it('names a missing argument as USAGE shows it', async () => {
    const result = await captureCommand(() => NeedsJob.run([], root));
    expect(result.exit).toBe(2);
    expect(result.stderr).toBe('Error: missing argument JOB\nHint: see `iris needs-job --help`\n');
  });

  it('prints the stack of a bug and exits 70', async () => {
    const result = await runBoom(['--kind', 'bug']);
    expect(result.exit).toBe(70);
    expect(result.stderr).toContain('TypeError: undefined is not a function');
    expect(result.stderr).toContain('base-command.test.ts');
  });

  it('returns data that --json prints', async () => {
    const result = await runBoom(['--kind', 'ok', '--json']);
    expect(result.exit).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true });
  });
});

class Interruptible extends BaseCommand {
  static override id = 'interruptible';
  async run(): Promise<{ calls: string[]; during: number; before: number; after: number }> {
    const before = process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
    const calls: string[] = [];
    const dispose = this.onInterrupt((signal) => calls.push(signal));
    const during = process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
    try {
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGINT', 'SIGINT'); // a second interrupt changes nothing
      process.emit('SIGINT', 'SIGINT');
    } finally {
      dispose();
    }
    return { calls, during, before, after: process.listenerCount('SIGINT') + process.listenerCount('SIGTERM') };
  }
}

describe('the one interrupt helper', () => {
  it('runs the handler once for the first SIGINT or SIGTERM and removes its listeners when disposed', async () => {
    const result = (await Interruptible.run([], root)) as Awaited<ReturnType<Interruptible['run']>>;
    expect(result.calls).toEqual(['SIGTERM']);
    expect(result.during).toBe(result.before + 2);
    expect(result.after).toBe(result.before);
  });
});

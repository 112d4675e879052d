/**
 * E2E: the CLI conventions every command shares (docs/cli.md, "Conventions"): `iris help` and
 * shell completion through oclif's own plugins, state colours and when they are off, one time
 * style (instants as ISO 8601 in --json), and `iris logs --timestamps=full`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, describeRun, runIris } from './harness.js';

/** Every file below `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out;
}

describe('help and shell completion', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(() => {
    assertBuilt();
    home = mkdtempSync(path.join(tmpdir(), 'iris-ac-'));
    // A fresh user: completion may write only below its cache directory, never IRIS_HOME.
    env = { HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), IRIS_HOME: path.join(home, 'state') };
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('`iris help submit` prints the help of submit', async () => {
    const r = await runIris(['help', 'submit'], { env });
    expect(r.code, describeRun(['help', 'submit'], r)).toBe(0);
    expect(r.stdout).toContain('Submit a job and print its name.');
    expect(r.stdout).toMatch(/USAGE\n\s+\$ iris submit /);
    expect(r.stdout).toContain('--replicas');
  });

  it('`iris --help` lists the commands, help and autocomplete among them', async () => {
    const r = await runIris(['--help'], { env });
    expect(r.code, describeRun(['--help'], r)).toBe(0);
    for (const command of ['submit', 'jobs', 'logs', 'help', 'autocomplete']) expect(r.stdout).toMatch(new RegExp(`^  ${command}\\s`, 'm'));
  });

  it('`iris autocomplete bash` prints setup instructions, and the script it installs completes `iris su` to submit', async () => {
    const r = await runIris(['autocomplete', 'bash'], { env });
    expect(r.code, describeRun(['autocomplete', 'bash'], r)).toBe(0);
    expect(r.stdout).toContain('iris autocomplete script bash');
    expect(r.stdout).toContain('~/.bashrc');

    const script = await runIris(['autocomplete', 'script', 'bash'], { env });
    expect(script.code, describeRun(['autocomplete', 'script', 'bash'], script)).toBe(0);
    expect(script.stdout).toContain('IRIS_AC_BASH_SETUP_PATH=');

    // What a user's ~/.bashrc runs, then what bash does on `iris su<TAB>` and `iris workers d<TAB>`.
    const complete = (words: string[]): string[] => {
      const program = [
        script.stdout,
        `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}`,
        'complete -p iris >/dev/null || exit 9',
        '_iris_autocomplete; printf "%s\\n" "${COMPREPLY[@]}"',
      ].join('\n');
      const shell = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { env: { ...process.env, ...env }, encoding: 'utf8' });
      expect(shell.status, shell.stderr).toBe(0);
      return shell.stdout.split('\n').filter(Boolean);
    };
    expect(complete(['iris', 'su'])).toEqual(['submit']);
    expect(complete(['iris', 'workers', 'd'])).toEqual(['drain']);

    // Nothing outside the cache directory: not IRIS_HOME, not the home directory itself.
    expect(filesUnder(home).every((file) => file.startsWith(path.join('.cache', 'iris', 'autocomplete') + path.sep)), filesUnder(home).join('\n')).toBe(true);
  });

  it('`iris autocomplete zsh` prints the zsh setup', async () => {
    const r = await runIris(['autocomplete', 'zsh'], { env });
    expect(r.code, describeRun(['autocomplete', 'zsh'], r)).toBe(0);
    expect(r.stdout).toContain('iris autocomplete script zsh');
  });
});

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
import { assertBuilt, describeRun, runIris, withCluster } from './harness.js';

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
    for (const command of ['submit', 'jobs', 'logs', 'help', 'autocomplete'])
      expect(r.stdout).toMatch(new RegExp(`^  ${command}\\s`, 'm'));
  });

  it(
    '`iris autocomplete bash` prints setup instructions, and the script it installs completes `iris su` to ' + 'submit',
    async () => {
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
        const shell = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        });
        expect(shell.status, shell.stderr).toBe(0);
        return shell.stdout.split('\n').filter(Boolean);
      };
      expect(complete(['iris', 'su'])).toEqual(['submit']);
      expect(complete(['iris', 'workers', 'd'])).toEqual(['disable', 'drain']);
      expect(complete(['iris', 'workers', 'dr'])).toEqual(['drain']);

      // Nothing outside the cache directory: not IRIS_HOME, not the home directory itself.
      expect(
        filesUnder(home).every((file) => file.startsWith(path.join('.cache', 'iris', 'autocomplete') + path.sep)),
        filesUnder(home).join('\n'),
      ).toBe(true);
    },
  );

  it('`iris autocomplete zsh` prints the zsh setup', async () => {
    const r = await runIris(['autocomplete', 'zsh'], { env });
    expect(r.code, describeRun(['autocomplete', 'zsh'], r)).toBe(0);
    expect(r.stdout).toContain('iris autocomplete script zsh');
  });
});

describe('colour, time style and log timestamps on a real cluster', () => {
  const c = withCluster();
  const RED_FAILED = '\u001b[31mFAILED\u001b[39m';
  // The harness sets NO_COLOR=1 FORCE_COLOR=0 for every run; these undo that.
  const forced = { NO_COLOR: undefined, FORCE_COLOR: '1' };
  const neither = { NO_COLOR: undefined, FORCE_COLOR: undefined };
  const ESC = '\u001b[';

  beforeAll(async () => {
    await c.submit(['--name', 'broken', '--cpu', '0.1'], ['sh', '-c', 'echo first; exit 3']);
    await c.submit(['--name', 'fine', '--cpu', '0.1'], ['echo', 'hello']);
    await c.waitForEnd('/broken');
    await c.waitForEnd('/fine');
  }, 60_000);

  it('FORCE_COLOR paints a failed job red in `iris jobs` and `iris status`, columns still aligned', async () => {
    const jobs = await c.iris(['jobs'], { env: forced });
    expect(jobs.code, describeRun(['jobs'], jobs)).toBe(0);
    expect(jobs.stdout).toContain(RED_FAILED);
    // Once the escape codes are taken out, every column starts under its header: widths ignore them.
    const lines = jobs.stdout.replace(/\u001b\[\d+m/g, '').split('\n');
    const header = lines[0]!;
    for (const [name, tasks] of [
      ['/broken', '0/1 ok, 1 failed'],
      ['/fine', '1/1 ok'],
    ] as const) {
      const row = lines.find((line) => line.startsWith(name + ' '))!;
      expect(row.indexOf(tasks), row).toBe(header.indexOf('TASKS'));
      expect(row.indexOf('root'), row).toBe(header.indexOf('USER'));
    }
    const status = await c.iris(['status', 'broken'], { env: forced });
    expect(status.stdout).toMatch(new RegExp(`^State:\\s+${RED_FAILED.replace(/\[/g, '\\[')}$`, 'm'));
  });

  it('no colour with NO_COLOR (even with FORCE_COLOR), when piped, or with --json', async () => {
    for (const env of [{ NO_COLOR: '1', FORCE_COLOR: '1' }, neither]) {
      const r = await c.iris(['jobs'], { env });
      expect(r.code, describeRun(['jobs'], r)).toBe(0);
      expect(r.stdout).toMatch(/FAILED/);
      expect(r.stdout).not.toContain(ESC);
    }
    const json = await c.iris(['jobs', '--json'], { env: forced });
    expect(json.stdout).not.toContain(ESC);
  });

  it('--json prints instants as ISO 8601 strings, durations as numbers', async () => {
    const job = await c.json<
      Record<string, unknown> & { taskList: Array<{ attempts: Array<Record<string, unknown>> }> }
    >(['status', 'broken']);
    for (const value of [job.submittedAt, job.finishedAt, job.taskList[0]!.attempts[0]!.startedAt]) {
      expect(typeof value).toBe('string');
      expect(String(value)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(job.timeoutMs === null || typeof job.timeoutMs === 'number').toBe(true);
    const jobs = await c.json<Array<Record<string, unknown>>>(['jobs']);
    expect(jobs.map((j) => typeof j.submittedAt)).toEqual(['string', 'string']);
  });

  it('`iris logs --timestamps=full` puts the local date in the prefix; the default stays a time', async () => {
    const full = await c.iris(['logs', 'fine', '--timestamps=full']);
    expect(full.code, describeRun(['logs', 'fine', '--timestamps=full'], full)).toBe(0);
    expect(full.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} task-0\[0\] hello\n$/);
    const day = full.stdout.slice(0, 10);
    const now = new Date();
    const today =
      `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-` +
      `${String(now.getDate()).padStart(2, '0')}`;
    const yesterday = new Date(now.getTime() - 86_400_000);
    const before =
      `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-` +
      `${String(yesterday.getDate()).padStart(2, '0')}`;
    expect([today, before]).toContain(day); // a run just after midnight logged yesterday

    for (const args of [
      ['logs', 'fine'],
      ['logs', 'fine', '--timestamps', 'time'],
    ]) {
      const r = await c.iris(args);
      expect(r.code, describeRun(args, r)).toBe(0);
      expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} task-0\[0\] hello\n$/);
    }
    const bad = await c.iris(['logs', 'fine', '--timestamps', 'date']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^Error: .*timestamps/m);
    expect(bad.stderr).toMatch(/^Hint: e\.g\. --timestamps time; see `iris logs --help`/m);
  });
});

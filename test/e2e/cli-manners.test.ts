/**
 * E2E: the CLI's manners at the entry (docs/cli.md, "Errors" and "Help and shell completion"):
 * an unknown command or flag is the documented two-line usage error, exit 2, with the closest
 * name (`did you mean submit?`, `did you mean --replicas?`), and starts no cluster; `-h` is help
 * everywhere; `iris version` beside `--version`; `iris help --json`; topic help lists every
 * subcommand; `iris submit --help` names the failures `--max-retries` counts as cli.md does; and
 * words after `--` still reach the task, flags or not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunResult, assertBuilt, describeRun, runIris, withCluster } from './harness.js';

/** The two lines of a usage error on stderr, nothing on stdout, exit 2. */
function expectUsageError(args: string[], r: RunResult): string[] {
  expect(r.code, describeRun(args, r)).toBe(2);
  expect(r.stdout, describeRun(args, r)).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, describeRun(args, r)).toHaveLength(2);
  expect(lines[0]).toMatch(/^Error: /);
  expect(lines[1]).toMatch(/^Hint: /);
  return lines;
}

describe('without a cluster', () => {
  let root: string;
  let env: Record<string, string>;
  beforeAll(() => {
    assertBuilt();
    root = mkdtempSync(path.join(tmpdir(), 'iris-manners-'));
    env = { HOME: root, IRIS_HOME: path.join(root, 'home') };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const iris = (args: string[]) => runIris(args, { env, cwd: root });

  it('an unknown command is a usage error with the closest command, and starts nothing', async () => {
    const args = ['sbumit', '--', 'true'];
    const [error, hint] = expectUsageError(args, await iris(args));
    expect(error).toBe('Error: unknown command "sbumit"');
    expect(hint).toContain('did you mean submit?');
    expect(existsSync(env.IRIS_HOME!), 'no cluster started').toBe(false);
  });

  it('a mistyped subcommand of a topic gets the subcommand of that topic', async () => {
    const args = ['cluster', 'stats'];
    const [error, hint] = expectUsageError(args, await iris(args));
    expect(error).toBe('Error: unknown command "cluster stats"');
    expect(hint).toContain('did you mean cluster status?');
  });

  it('a command nothing resembles gets the way to the list instead of a guess', async () => {
    const args = ['xyzzy'];
    const [, hint] = expectUsageError(args, await iris(args));
    expect(hint).not.toContain('did you mean');
    expect(hint).toContain('iris --help');
  });

  it('with --json the unknown command is the JSON error on stdout, same exit code', async () => {
    const r = await iris(['sbumit', '--json']);
    expect(r.code, describeRun(['sbumit', '--json'], r)).toBe(2);
    const body = JSON.parse(r.stdout) as { error: { code: string; message: string; hint: string } };
    expect(body.error.code).toBe('invalid_argument');
    expect(body.error.hint).toContain('did you mean submit?');
  });

  it('an unknown flag is a usage error with the closest flag, and starts no cluster', async () => {
    const args = ['submit', '--replica', '4', '--', 'true'];
    const [error, hint] = expectUsageError(args, await iris(args));
    expect(error).toBe('Error: unknown flag --replica');
    expect(hint).toContain('did you mean --replicas?');
    expect(hint).toContain('iris submit --help');
    expect(existsSync(env.IRIS_HOME!), 'no cluster started').toBe(false);

    const jobs = ['jobs', '--stat=running'];
    const [jobsError, jobsHint] = expectUsageError(jobs, await iris(jobs));
    expect(jobsError).toBe('Error: unknown flag --stat');
    expect(jobsHint).toContain('did you mean --state?');
  });

  it('-h is help at the root, for a command and for a topic command', async () => {
    for (const [args, usage] of [
      [['-h'], '$ iris [COMMAND]'],
      [['jobs', '-h'], '$ iris jobs'],
      [['cluster', 'status', '-h'], '$ iris cluster status'],
    ] as const) {
      const r = await iris([...args]);
      expect(r.code, describeRun([...args], r)).toBe(0);
      expect(r.stdout).toContain('USAGE');
      expect(r.stdout).toContain(usage);
    }
  });

  it('`iris version` prints what --version prints; --json gives version, node and platform', async () => {
    const flag = await iris(['--version']);
    const command = await iris(['version']);
    expect(command.code, describeRun(['version'], command)).toBe(0);
    expect(command.stdout).toBe(flag.stdout);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const json = await iris(['version', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      version: pkg.version,
      node: process.versions.node,
      platform: process.platform,
    });
  });

  it('`iris help --json` lists every command; `iris help COMMAND --json` one', async () => {
    const r = await iris(['help', '--json']);
    expect(r.code, describeRun(['help', '--json'], r)).toBe(0);
    const all = JSON.parse(r.stdout) as { command: string; summary: string; usage: string; flags: string[] }[];
    const names = all.map((c) => c.command);
    for (const name of ['submit', 'jobs', 'cluster start', 'workers disable', 'workers enable', 'version'])
      expect(names).toContain(name);
    expect(all.find((c) => c.command === 'submit')!.flags).toContain('-r, --replicas');
    // `usage` is the text help's USAGE (its arguments and flags), not the bare command name.
    const usage = (name: string) => all.find((c) => c.command === name)!.usage;
    const statusHelp = (await iris(['status', '--help'])).stdout;
    expect(usage('status')).toMatch(/^iris status JOB /);
    expect(statusHelp).toContain(`$ ${usage('status')}`);
    expect(usage('submit').split('\n')[0]).toBe('iris submit [FLAGS] -- COMMAND [ARGS…]');

    const one = await iris(['help', 'workers', 'drain', '--json']);
    expect((JSON.parse(one.stdout) as { command: string }[]).map((c) => c.command)).toEqual(['workers drain']);
  });

  it('topic help lists every subcommand, and the root help says what the workers topic holds', async () => {
    const topic = await iris(['workers', '--help']);
    expect(topic.code, describeRun(['workers', '--help'], topic)).toBe(0);
    for (const sub of ['drain', 'resume', 'disable', 'enable'])
      expect(topic.stdout).toMatch(new RegExp(`^\\s+workers ${sub}\\s`, 'm'));
    const rootHelp = await iris(['--help']);
    const line = rootHelp.stdout.split('\n').find((l) => /^\s+workers\s/.test(l));
    expect(line).toBeDefined();
    for (const verb of ['drain', 'resume', 'disable', 'enable']) expect(line).toContain(verb);
  });

  it('`iris submit --help` names the failures --max-retries retries as cli.md does', async () => {
    const cli = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    const row = cli.split('\n').find((l) => l.startsWith('| `--max-retries N` |'));
    expect(row, 'the --max-retries row of docs/cli.md').toBeDefined();
    // `retries per task after a failed attempt — CAUSE, CAUSE, … (default 0)`
    const causes = /after a failed attempt — (.*?) \(default 0\)/.exec(row!)?.[1];
    expect(causes, row).toBeDefined();
    const help = (await iris(['submit', '--help'])).stdout.replace(/\s+/g, ' ');
    const flag = /--max-retries=<value>(.*?)--max-task-failures/.exec(help)?.[1] ?? '';
    for (const cause of causes!.split(', ')) expect(flag).toContain(cause.replace(/ \(`[^`]*`\)/g, ''));
  });
});

describe('words after -- reach the task', () => {
  const c = withCluster();

  it('an unknown flag after -- is the command’s, not iris’s; so is -h', async () => {
    const args = ['run', '--name', 'echo', '--', 'sh', '-c', 'echo "args:$*"', 'sh', '--foo', '-h', '--replica'];
    const r = await c.iris(args);
    expect(r.code, describeRun(args, r)).toBe(0);
    expect(r.stdout).toContain('args:--foo -h --replica');
  });
});

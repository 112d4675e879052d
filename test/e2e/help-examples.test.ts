/**
 * E2E: the EXAMPLES of every command's help cannot drift from the CLI. Each example of each
 * command in the built manifest is split as a shell would, must name its own command, and must
 * parse with that command's real flags and arguments (oclif's parser, the command not run).
 * The read-only examples (`jobs`, `queue`, `status`, `logs`, `wait`, `workers`, `endpoints`,
 * `cluster status`, `watch --once`, `metrics`) and `--help` of every command then run on the built binary
 * against a real cluster holding the jobs the examples name, and must exit 0. The USAGE line
 * of a command with two arguments lists them in their positional order. Last, the
 * `workers drain` example runs against the worker a cluster without `workers:` in its config has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Config } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, describeRun, withCluster } from './harness.js';

interface ManifestCommand {
  examples?: string[];
}
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};
const ids = Object.keys(manifest.commands).sort();

interface Example {
  id: string;
  text: string;
  /** The words after `iris` up to a pipe or comment, with quotes removed. */
  argv: string[];
}

/**
 * Split an example line as sh would for the parts our examples use: leading VAR=value
 * assignments, single and double quotes (a `$(…)` inside stays literal), and a `|` or `#`
 * outside quotes ends the iris command.
 */
function splitExample(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (const ch of line) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === ' ' || ch === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if ((ch === '|' || ch === '#') && word === null) {
      break;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (quote !== null) throw new Error(`unbalanced quote in example: ${line}`);
  if (word !== null) words.push(word);
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
  return words;
}

const examples: Example[] = ids.flatMap((id) =>
  (manifest.commands[id]!.examples ?? []).map((raw) => {
    const text = raw.replaceAll('<%= config.bin %>', 'iris');
    const words = splitExample(text);
    if (words[0] !== 'iris') throw new Error(`example of ${id} does not start with iris: ${text}`);
    return { id, text, argv: words.slice(1) };
  }),
);

/** Read-only commands whose examples run against the cluster; a follow or a live view would not end. */
const READ_ONLY = new Set([
  'jobs',
  'history',
  'queue',
  'status',
  'logs',
  'wait',
  'workers',
  'endpoints',
  'cluster:status',
  'config',
  'watch',
  'metrics',
]);
const runnable = (e: Example): boolean =>
  READ_ONLY.has(e.id) &&
  !e.argv.includes('-f') &&
  !e.argv.includes('--follow') &&
  (e.id !== 'watch' || e.argv.includes('--once'));

describe('the examples in every command help', () => {
  let config: Config;
  beforeAll(async () => {
    assertBuilt();
    config = await Config.load(ROOT);
  });

  it('covers every command, and every command has an example', () => {
    expect(ids.length).toBeGreaterThan(10);
    for (const id of ids) expect(manifest.commands[id]!.examples ?? [], id).not.toHaveLength(0);
  });

  it.each(examples.map((e) => [e.text, e] as const))('parses: %s', async (_text, example) => {
    const words = example.id.split(':');
    expect(example.argv.slice(0, words.length), `the example names its own command ${example.id}`).toEqual(words);
    const found = config.findCommand(example.id);
    expect(found, example.id).toBeDefined();
    const Command = await found!.load();
    // parse() is what run() calls first: flags, arguments and their parsers, without running.
    type Parsing = new (
      argv: string[],
      config: Config,
    ) => { parse: (c: unknown) => Promise<{ args: Record<string, unknown> }> };
    const command = new (Command as unknown as Parsing)(example.argv.slice(words.length), config);
    const parsed = await command.parse(Command);
    for (const [name, arg] of Object.entries(Command.args ?? {})) {
      if (arg.required) expect(parsed.args[name], `${example.text}: argument ${name}`).toBeDefined();
    }
  });

  it('shows the arguments of endpoints register in their positional order', async () => {
    const Command = await config.findCommand('endpoints:register')!.load();
    expect(Object.keys(Command.args ?? {})).toEqual(['name', 'address']);
    expect(Object.keys(config.findCommand('endpoints:register')!.args)).toEqual(['name', 'address']);
  });
});

describe('the read-only examples and --help on a real cluster', () => {
  // No workers in the config: the machine's default worker, the one a user's first `iris workers`
  // shows. Two named queues, so that `iris queue --queue gpu` names one that exists.
  const c = withCluster('queues:\n  default: {}\n  gpu: { policy: fcfs }\n');
  beforeAll(async () => {
    const gate = c.gate('train');
    // /train fails its first attempt and runs a second (so `--attempt 1` exists), with a child.
    await c.submit(
      ['--name', 'train', '--cpu', '0.5', '--max-retries', '1'],
      ['sh', '-c', `echo "attempt $IRIS_ATTEMPT"; if [ "$IRIS_ATTEMPT" = 0 ]; then exit 1; fi; ${gate.hold}`],
    );
    await c.waitForTask('/train', 0, (t) => t.attempt === 1 && t.state === 'RUNNING', 'attempt 1 running');
    await c.submit(['--name', 'train/eval', '--cpu', '0.5'], ['echo', 'eval']);
    await c.waitForEnd('/train/eval');
    gate.open();
    for (const name of ['sweep-1', 'sweep-2']) await c.submit(['--name', name, '--cpu', '0.5'], ['true']);
    for (const name of ['/train', '/sweep-1', '/sweep-2']) await c.waitForEnd(name);
  }, 120_000);

  const run = examples.filter(runnable);

  it('runs enough examples to mean something', () => {
    expect(run.length).toBeGreaterThanOrEqual(15);
  });

  it.each(run.map((e) => [e.text, e] as const))('exits 0: %s', async (_text, example) => {
    const r = await c.iris(example.argv, { timeoutMs: 60_000 });
    expect(r.code, describeRun(example.argv, r)).toBe(0);
  });

  it.each(ids.map((id) => [id] as const))('%s --help exits 0 with its examples', async (id) => {
    const argv = [...id.split(':'), '--help'];
    const r = await c.iris(argv);
    expect(r.code, describeRun(argv, r)).toBe(0);
    expect(r.stdout).toContain('USAGE');
    // `iris help --help` is the root help (oclif's help never takes the word help as its subject),
    // which lists the commands instead of examples.
    if (id === 'help') expect(r.stdout).toContain('COMMANDS');
    else expect(r.stdout).toContain('EXAMPLES');
  });

  // Last, as it changes the cluster: the drain example names a worker a default cluster has.
  it.each(examples.filter((e) => e.id === 'workers:drain').map((e) => [e.text, e] as const))(
    'exits 0: %s',
    async (_text, example) => {
      const r = await c.iris(example.argv);
      expect(r.code, describeRun(example.argv, r)).toBe(0);
    },
  );

  it('prints the arguments of endpoints register as NAME ADDRESS', async () => {
    const r = await c.iris(['endpoints', 'register', '--help']);
    expect(r.stdout).toContain('$ iris endpoints register NAME ADDRESS');
  });
});

/**
 * E2E: the transcripts in README.md and docs/*.md that need no cluster print what they show.
 * A transcript is a fenced block with `$ iris …` lines, each followed by its output up to the next
 * `$ ` line or the end of the block. Those of `iris simulate` (offline, and deterministic: the same
 * trace gives the same numbers) run on the built binary from the checkout, and their stdout must be
 * the block's text exactly (the `Fleet cost` line included). Transcripts of commands that need a
 * running cluster with particular jobs are checked elsewhere (test/e2e/readme.test.ts for the
 * quick start) or not at all.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, describeRun, runIris } from './harness.js';

interface Transcript {
  file: string;
  argv: string[];
  output: string;
}

/** Every `$ iris …` transcript of the fenced blocks of `text`. */
function transcriptsOf(file: string, text: string): Transcript[] {
  const found: Transcript[] = [];
  let inBlock = false;
  let current: { argv: string[]; lines: string[] } | null = null;
  const close = () => {
    if (current) found.push({ file, argv: current.argv, output: current.lines.join('\n').trimEnd() });
    current = null;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) {
      if (inBlock) close();
      inBlock = !inBlock;
    } else if (inBlock && line.startsWith('$ ')) {
      close();
      // The words of the command: plain words only (these transcripts quote nothing).
      const words = line.slice(2).trim().split(/\s+/);
      if (words[0] === 'iris') current = { argv: words.slice(1), lines: [] };
    } else if (inBlock) current?.lines.push(line);
  }
  return found;
}

const files = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f)),
];
const transcripts = files.flatMap((file) => transcriptsOf(file, readFileSync(path.join(ROOT, file), 'utf8')));
const offline = transcripts.filter((t) => t.argv[0] === 'simulate');

describe('transcripts in the docs that need no cluster', () => {
  beforeAll(() => assertBuilt());

  it('finds the simulate transcripts', () => {
    expect(offline.length).toBeGreaterThanOrEqual(2);
  });

  it.each(offline.map((t) => [`${t.file}: iris ${t.argv.join(' ')}`, t] as const))(
    '%s prints what the doc shows',
    async (_name, t) => {
      const r = await runIris(t.argv, { cwd: ROOT, timeoutMs: 60_000 });
      expect(r.code, describeRun(t.argv, r)).toBe(0);
      expect(r.stdout.trimEnd()).toBe(t.output);
    },
  );
});

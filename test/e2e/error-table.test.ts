/**
 * E2E: docs/cli.md's error table (between `<!-- error-table:start -->` and `<!-- error-table:end -->`)
 * is what the built binary does. Each row is read from the doc when the test runs and run as
 * written from an empty directory: with no cluster (`none`, a fresh IRIS_HOME; the row must then
 * start none) or against one running cluster of default settings (`running`). Its stderr must
 * have the row's lines in that order (`…` matches any text), nothing on stdout, and the row's
 * exit code. The table's structure is this file's: a row another part adds is checked the same way.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, assertBuilt, describeRun, runIris, withCluster } from './harness.js';

interface Row {
  command: string;
  argv: string[];
  cluster: 'none' | 'running';
  says: string[];
  exit: number;
}

/** The code spans of a table cell: `a` or ``a `b` c`` (a span's padding space dropped). */
function codeSpans(cell: string): string[] {
  const spans: string[] = [];
  const re = /(`+)(.+?)\1(?!`)/g;
  for (let m = re.exec(cell); m !== null; m = re.exec(cell)) {
    const text = m[2]!;
    spans.push(m[1]!.length > 1 && text.startsWith(' ') && text.endsWith(' ') ? text.slice(1, -1) : text.trimEnd());
  }
  return spans;
}

/** A command's words as sh splits them, for the plain and single- or double-quoted words of the table. */
function words(command: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(command); m !== null; m = re.exec(command)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

function tableRows(doc: string): Row[] {
  const start = doc.indexOf('<!-- error-table:start -->');
  const end = doc.indexOf('<!-- error-table:end -->');
  if (start < 0 || end < start) throw new Error('docs/cli.md has no error table');
  return doc
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(/ \| /).map((c) => c.replace(/^\| |\s*\|$/g, ''));
      if (cells.length !== 4) throw new Error(`an error-table row has ${cells.length} cells: ${line}`);
      const command = codeSpans(cells[0]!)[0]!;
      const argv = words(command);
      if (argv[0] !== 'iris') throw new Error(`an error-table row runs ${command}, not iris`);
      const cluster = cells[1]!.trim();
      if (cluster !== 'none' && cluster !== 'running') throw new Error(`cluster "${cluster}" in: ${line}`);
      return { command, argv: argv.slice(1), cluster, says: codeSpans(cells[2]!), exit: Number(cells[3]) };
    });
}

const rows = tableRows(readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8'));

/** `text` as a pattern of one whole line, `…` matching any text. */
const linePattern = (text: string): RegExp =>
  new RegExp(
    `^${text
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

function expectSays(row: Row, r: { code: number | null; stdout: string; stderr: string }, described: string): void {
  expect(r.code, described).toBe(row.exit);
  expect(r.stdout, described).toBe('');
  const lines = r.stderr.split('\n');
  let from = 0;
  for (const said of row.says) {
    const at = lines.findIndex((line, i) => i >= from && linePattern(said).test(line));
    expect(at, `${described}\nexpected a line ${said}`).toBeGreaterThanOrEqual(from);
    from = at + 1;
  }
}

describe('docs/cli.md, the error table', () => {
  it('has rows of both kinds, each with what iris says', () => {
    expect(rows.filter((r) => r.cluster === 'none').length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.cluster === 'running').length).toBeGreaterThan(0);
    for (const row of rows) expect(row.says.length, row.command).toBeGreaterThan(0);
  });

  describe('with no cluster', () => {
    let root: string;
    beforeAll(() => {
      assertBuilt();
      root = mkdtempSync(path.join(tmpdir(), 'iris-errors-'));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it.each(rows.filter((r) => r.cluster === 'none').map((r) => [r.command, r] as const))('%s', async (_c, row) => {
      const dir = mkdtempSync(path.join(root, 'row-'));
      const home = path.join(dir, 'home');
      const cwd = path.join(dir, 'work');
      mkdirSync(cwd);
      const env = { HOME: dir, IRIS_HOME: home };
      const r = await runIris(row.argv, { cwd, env });
      const started = existsSync(path.join(home, 'cluster.pid'));
      if (started) await runIris(['cluster', 'stop'], { cwd, env });
      expectSays(row, r, describeRun(row.argv, r));
      expect(started, `${row.command} started a cluster`).toBe(false);
    });
  });

  describe('with a running cluster of default settings', () => {
    const c = withCluster();
    it.each(rows.filter((r) => r.cluster === 'running').map((r) => [r.command, r] as const))('%s', async (_c, row) => {
      const r = await c.iris(row.argv);
      expectSays(row, r, describeRun(row.argv, r));
    });
  });
});

/**
 * scripts/check-lines.js (the line-length half of `npm run lint`) reports every line over 120
 * characters as FILE:LINE and fails, except a line long only because of URLs and a table row in a
 * comment. Run on a throwaway tree (a copy of the script there, so the tree is its root).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-check-lines-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(root, 'scripts', 'check-lines.js'), path.join(dir, 'scripts', 'check-lines.js'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function check(dir: string) {
  const result = spawnSync(process.execPath, [path.join(dir, 'scripts', 'check-lines.js')], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('check-lines', () => {
  it('passes lines of 120 characters, counting code points', () => {
    const dir = tree({ 'src/a.ts': `${'x'.repeat(120)}\n${'→'.repeat(120)}\n` });
    const { status, output } = check(dir);
    expect(output).toContain('check-lines: 0 lines over 120 characters');
    expect(status).toBe(0);
  });

  it('names each longer line as FILE:LINE and fails', () => {
    const dir = tree({
      'src/a.ts': `const ok = 1;\nconst s = '${'y'.repeat(120)}';\n`,
      'test/b.test.ts': `// ${'z'.repeat(130)}\n`,
      'bench/c.mjs': `${'w'.repeat(121)}\n`,
    });
    const { status, output } = check(dir);
    expect(output).toContain('src/a.ts:2: 133 characters');
    expect(output).toContain('test/b.test.ts:1: 133 characters');
    expect(output).toContain('bench/c.mjs:1: 121 characters');
    expect(output).toContain('check-lines: 3 lines over 120 characters');
    expect(status).toBe(1);
  });

  it('allows a line long only because of a URL, and a table row in a comment', () => {
    const url = `https://example.com/${'p'.repeat(120)}`;
    const dir = tree({
      'src/a.ts': [
        `// see ${url}`,
        `//   | ${'a'.repeat(60)} | ${'b'.repeat(60)} |`,
        ` * | ${'c'.repeat(60)} | ${'d'.repeat(60)} |`,
        `const u = '${url}'; // ${'e'.repeat(120)}`,
        '',
      ].join('\n'),
    });
    const { status, output } = check(dir);
    expect(output).toContain('src/a.ts:4:');
    expect(output).toContain('check-lines: 1 line over 120 characters');
    expect(status).toBe(1);
  });

  it('reads only source files under src, test, scripts, bench and bin', () => {
    const long = `${'q'.repeat(130)}\n`;
    const dir = tree({ 'docs/a.ts': long, 'src/data.json': long, 'node_modules/x/src/a.ts': long, 'bin/iris': long });
    const { output } = check(dir);
    expect(output).toContain('bin/iris:1: 130 characters');
    expect(output).toContain('check-lines: 1 line over 120 characters');
  });
});

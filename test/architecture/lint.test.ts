/**
 * `npm run lint` holds inside `npm test`: Biome (biome.json: the formatter's layout and the
 * recommended lint rules) finds no error in src/, test/, scripts/, bench/ and bin/, and no line
 * there is over 120 characters (scripts/check-lines.js). The second test proves Biome bites: a
 * badly laid out file and a lint error fail `biome ci` in a throwaway tree with the same rules.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const biome = path.join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

function run(cwd: string, file: string, args: string[]) {
  const result = spawnSync(process.execPath, [file, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm run lint', () => {
  it('biome ci finds no formatting or lint error in the tree', () => {
    const { status, output } = run(root, biome, ['ci', '--colors=off']);
    expect(status, output).toBe(0);
  }, 60_000);

  it('no source line is over 120 characters', () => {
    const { status, output } = run(root, path.join(root, 'scripts', 'check-lines.js'), []);
    expect(status, output).toBe(0);
  }, 60_000);

  it('biome ci fails on a file laid out by hand and on a lint error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iris-biome-'));
    try {
      const config = JSON.parse(readFileSync(path.join(root, 'biome.json'), 'utf8'));
      config.$schema = undefined;
      config.vcs = { enabled: false };
      writeFileSync(path.join(dir, 'biome.json'), JSON.stringify(config));
      mkdirSync(path.join(dir, 'src'));
      writeFileSync(path.join(dir, 'src', 'layout.ts'), 'export const a = {b:1,\n    c:2};\n');
      writeFileSync(path.join(dir, 'src', 'debug.ts'), 'export function f(x: number) {\n  debugger;\n  return x;\n}\n');
      const { status, output } = run(dir, biome, ['ci', '--colors=off']);
      expect(status).not.toBe(0);
      expect(output).toMatch(/src\/layout\.ts format/);
      expect(output).toMatch(/src\/debug\.ts:2:3 lint\/suspicious\/noDebugger/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

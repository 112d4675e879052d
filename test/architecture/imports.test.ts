/**
 * The import rules (docs/architecture.md, "Layers") hold: dependency-cruiser checks every module
 * under src/ against .dependency-cruiser.cjs. A violation fails here with the offending import.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

function cruise(cwd: string, config: string, target: string) {
  const result = spawnSync(process.execPath, [cli, '--config', config, '--output-type', 'err', target], { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('import rules', () => {
  it('src/ has no import that breaks a layer rule and no cycle', () => {
    const { status, output } = cruise(root, '.dependency-cruiser.cjs', 'src');
    expect(output, output).not.toMatch(/error /);
    expect(status, output).toBe(0);
  }, 60_000);

  it('the checker reports an engine module that imports the server, and a cycle', () => {
    // A throwaway tree with the same config: proves the rules bite (a check that cannot fail proves nothing).
    const dir = mkdtempSync(path.join(tmpdir(), 'iris-depcruise-'));
    try {
      for (const sub of ['src/cluster/scheduler', 'src/server', 'src/model']) mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
      writeFileSync(path.join(dir, 'src/server/views.ts'), "export const view = 1;\n");
      writeFileSync(path.join(dir, 'src/cluster/scheduler/pass.ts'), "import { view } from '../../server/views.js';\nimport { readFileSync } from 'node:fs';\nexport const pass = view + readFileSync.length;\n");
      writeFileSync(path.join(dir, 'src/model/a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
      writeFileSync(path.join(dir, 'src/model/b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
      const { status, output } = cruise(dir, path.join(root, '.dependency-cruiser.cjs'), 'src');
      expect(status).not.toBe(0);
      expect(output).toContain('cluster-gets-resolved-settings: src/cluster/scheduler/pass.ts → src/server/views.ts');
      expect(output).toContain('scheduler-has-no-side-effects: src/cluster/scheduler/pass.ts → fs');
      expect(output).toMatch(/no-circular: src\/model\/a\.ts → /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

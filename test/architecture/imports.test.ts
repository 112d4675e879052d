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
  const result = spawnSync(process.execPath, [cli, '--config', config, '--output-type', 'err', target], {
    cwd,
    encoding: 'utf8',
  });
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
      for (const sub of ['src/cluster/scheduler', 'src/server', 'src/model'])
        mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
      );
      writeFileSync(path.join(dir, 'src/server/views.ts'), 'export const view = 1;\n');
      writeFileSync(
        path.join(dir, 'src/cluster/scheduler/pass.ts'),
        "import { view } from '../../server/views.js';\nimport { readFileSync } from 'node:fs';\nexport const pass " +
          '= view + readFileSync.length;\n',
      );
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

  it('the checker reports the reaches across layers that issue 29 closed, and allows their seams', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'iris-depcruise-'));
    const files: Record<string, string> = {
      'src/model/names.ts': 'export const name = 1;\n',
      'src/logs/files.ts': 'export const appendNote = 1;\n',
      'src/runtime/notes.ts': "import { appendNote } from '../logs/files.js';\nexport const noteInLog = appendNote;\n",
      'src/host/proc.ts': "import { name } from '../model/names.js';\nexport const isAlive = name;\n",
      'src/plot/svg.ts': "import { readFileSync } from 'node:fs';\nexport const niceTicks = readFileSync;\n",
      'src/sim/plot.ts': "import { niceTicks } from '../plot/svg.js';\nexport const renderPlot = niceTicks;\n",
      'src/sim/results.ts': 'export type Sample = 1;\n',
      'src/ui/density.ts': "import { renderPlot } from '../sim/plot.js';\nexport const plot = renderPlot;\n",
      'src/ui/summary.ts': "import type { Sample } from '../sim/results.js';\nexport const show = (s: Sample) => s;\n",
      'src/server/offline.ts': 'export const openOffline = 1;\n',
      'src/server/daemon.ts': 'export const runCluster = 1;\n',
      'src/client/socket-client.ts': "import { noteInLog } from '../runtime/notes.js';\nexport const c = noteInLog;\n",
      'src/client/offline-client.ts':
        "import { openOffline } from '../server/offline.js';\n" + 'export const o = openOffline;\n',
      'src/cluster/controller/supervisor.ts':
        "import { appendNote } from '../../logs/files.js';\n" + 'export const n = appendNote;\n',
      'src/cluster/admission/index.ts': "import { readFileSync } from 'node:fs';\nexport const admit = readFileSync;\n",
      'src/commands/jobs.ts':
        "import { runCluster } from '../server/daemon.js';\nimport { o } from '../client/offline-client.js';\n" +
        "export const jobs = async () => [runCluster, o, await import('../server/daemon.js')];\n",
      'src/commands/start.ts': "export const start = () => import('../server/daemon.js');\n",
    };
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      const options = { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } };
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(options));
      const { status, output } = cruise(dir, path.join(root, '.dependency-cruiser.cjs'), 'src');
      expect(status).not.toBe(0);
      for (const line of [
        'host-is-a-leaf: src/host/proc.ts → src/model/names.ts',
        'client-speaks-the-protocol: src/client/socket-client.ts → src/runtime/notes.ts',
        'ui-takes-only-types-from-sim: src/ui/density.ts → src/sim/plot.ts',
        'cluster-reaches-logs-through-runtime: src/cluster/controller/supervisor.ts → src/logs/files.ts',
        'pure-rules-have-no-side-effects: src/cluster/admission/index.ts → fs',
        'commands-start-the-cluster-only: src/commands/jobs.ts → src/server/daemon.ts',
        'offline-reader-loaded-only-when-no-cluster-answers: src/commands/jobs.ts → src/client/offline-client.ts',
      ]) {
        expect(output).toContain(line);
      }
      // The seams: the offline reader's one import of the server, the controller's notes through the
      // runtime, a dynamic start of the daemon, ui's type import from sim, and a leaf's Node import.
      expect(output).not.toContain('src/client/offline-client.ts → src/server/offline.ts');
      expect(output).not.toContain('src/runtime/notes.ts →');
      expect(output).not.toContain('src/commands/start.ts →');
      expect(output).not.toContain('src/plot/svg.ts →');
      expect(output).not.toContain('src/ui/summary.ts →');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

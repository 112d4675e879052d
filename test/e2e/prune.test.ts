/**
 * E2E: retention on the built binary. `iris prune` removes finished runs (live trees and older
 * runs of a name) with their log directories, keeps what runs, says what it would do with
 * --dry-run, names the flag in errors, is refused inside a task; and a cluster with a short
 * `retention` prunes by itself when it starts.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobSummary, PruneResponse } from '../../src/api/types.js';
import { describeRun, waitUntil, withCluster } from './harness.js';

const CONFIG = `
workers:
  - name: w0
    cpu: 4
    memory: 2GiB
`;

/** Every `@RUN` directory under logs/ (each holds one run's logs). */
function runDirs(home: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const full = path.join(dir, entry.name);
      if (entry.name.startsWith('@')) out.push(path.relative(path.join(home, 'logs'), full));
      else walk(full);
    }
  };
  walk(path.join(home, 'logs'));
  return out.sort();
}

describe('iris prune', () => {
  const c = withCluster(CONFIG);

  it('removes finished runs with their logs, keeps running trees, and --dry-run changes nothing', async () => {
    await c.submit(['--name', 'again', '--cpu', '0.1'], ['sh', '-c', 'echo first']);
    await c.waitForState('/again', 'SUCCEEDED');
    await c.submit(['--name', 'again', '--cpu', '0.1'], ['sh', '-c', 'echo second']);
    await c.waitForState('/again', 'SUCCEEDED');
    const gate = c.gate('busy');
    await c.submit(['--name', 'busy', '--cpu', '0.1'], ['sh', '-c', `echo busy; ${gate.hold}`]);
    await c.waitForLog('/busy', 'busy');
    expect(runDirs(c.home)).toHaveLength(3);

    const dry = await c.json<PruneResponse>(['prune', '--older-than', '1ms', '--dry-run']);
    expect(dry.dryRun).toBe(true);
    expect(dry.runs.map((r) => r.name)).toEqual(['/again', '/again']);
    expect(dry.logBytes).toBeGreaterThan(0);
    expect(runDirs(c.home)).toHaveLength(3);
    const text = await c.iris(['prune', '--older-than', '1ms', '--dry-run']);
    expect(text.stdout).toMatch(/^would prune 2 runs that ended more than .* ago \(\d+B of logs\)/);

    const done = await c.iris(['prune', '--older-than', '1ms']);
    expect(done.code, describeRun(['prune', '--older-than', '1ms'], done)).toBe(0);
    expect(done.stdout).toMatch(/^pruned 2 runs that ended more than .* ago \(freed \d+B of logs\)/);
    expect(done.stdout).toMatch(/\/again@\d+\s+SUCCEEDED/);
    expect(runDirs(c.home)).toEqual([expect.stringMatching(/^busy\/@\d+$/)]);
    expect(existsSync(path.join(c.home, 'logs', 'again'))).toBe(false);
    const jobs = await c.json<JobSummary[]>(['jobs', '--all']);
    expect(jobs.map((j) => j.name)).toEqual(['/busy']);

    const nothing = await c.iris(['prune', '--older-than', '1ms']);
    expect(nothing.stdout.trim()).toMatch(/^nothing to prune/);
    gate.open();
    await c.waitForState('/busy', 'SUCCEEDED');
  });

  it('names the flag in errors, and a task may not prune (exit 4)', async () => {
    for (const bad of ['soon', '0s']) {
      const r = await c.iris(['prune', '--older-than', bad]);
      expect(r.code, describeRun(['prune', '--older-than', bad], r)).toBe(2);
      expect(r.stderr).toContain('--older-than');
    }
    await c.submit(['--name', 'sneaky', '--cpu', '0.1'], ['sh', '-c', 'iris prune --older-than 1ms; echo "exit=$?"']);
    await c.waitForState('/sneaky', 'SUCCEEDED');
    const lines = (await c.logs('/sneaky')).map((l) => l.text).join('\n');
    expect(lines).toContain('exit=4');
    expect(lines).toMatch(/pruning old runs/);
  });
});

describe('automatic retention', () => {
  const c = withCluster(`${CONFIG}retention: 2s\n`);

  it('a cluster prunes runs older than its retention when it starts', async () => {
    await c.submit(['--name', 'short', '--cpu', '0.1'], ['true']);
    await c.waitForState('/short', 'SUCCEEDED');
    await c.stop();
    const ended = Date.now();
    await waitUntil(
      'the retention age to pass',
      async () => Date.now() - ended,
      (ms) => ms > 2500,
      { timeoutMs: 10_000 },
    );
    await c.start();
    await waitUntil(
      'the run to be pruned',
      () => c.jobs(),
      (jobs) => jobs.length === 0,
      { timeoutMs: 10_000 },
    );
    expect(runDirs(c.home)).toEqual([]);
    const log = await import('node:fs').then((fs) => fs.readFileSync(path.join(c.home, 'cluster.log'), 'utf8'));
    expect(log).toMatch(/retention: pruned 1 run\(s\) that ended more than 2s ago/);
  });
});

/**
 * E2E: context-reuse cache hints on the built binary (docs/architecture.md, "Context reuse").
 * A pipeline stage that `uses` a model runs on w1 (pinned by a constraint): while it runs, w1
 * is loading the key; once it ended, `iris workers` shows w1 holding it for `placement.cache-ttl`
 * (2h here), in text and JSON; w0 holds nothing. The hint survives a restart of the cluster.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkerInfo } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';

const CONFIG = `workers:
  - {name: w0, cpu: 2, memory: 2GiB, attributes: {host: w0}}
  - {name: w1, cpu: 2, memory: 2GiB, attributes: {host: w1}}
placement:
  cache-ttl: 2h
`;

/** `iris workers --json` prints instants as ISO strings. */
type CliWorker = Omit<WorkerInfo, 'cache'> & { cache: { key: string; expiresAt: string; loading: boolean }[] };

describe('context-reuse cache hints', () => {
  const c = withCluster(CONFIG);
  const cacheOf = async (id: string) => (await c.json<CliWorker[]>(['workers'])).find((w) => w.id === id)!.cache;

  it('a stage that uses a model leaves a hint on the worker it ran on, shown by iris workers', async () => {
    const gate = c.gate('load');
    const file = path.join(c.cwd, 'tune.yaml');
    writeFileSync(
      file,
      `name: tune
stages:
  train:
    cpu: 0.5
    constraints: [host=w1]
    uses: [llama-3]
    command: ${gate.hold}
`,
    );
    const submit = await c.iris(['submit', '-f', 'tune.yaml']);
    expect(submit.code, describeRun(['submit', '-f', 'tune.yaml'], submit)).toBe(0);
    await c.waitForState('/tune/train', 'RUNNING');
    expect(await cacheOf('w1')).toMatchObject([{ key: 'llama-3', loading: true }]);
    const running = await c.iris(['workers']);
    expect(running.stdout).toMatch(/CACHED/);
    expect(running.stdout).toMatch(/w1 .*llama-3 \(loading\)/);

    gate.open();
    const done = await c.waitForState('/tune/train', 'SUCCEEDED');
    const ended = done.finishedAt!;
    const [hint] = await cacheOf('w1');
    expect(hint).toMatchObject({ key: 'llama-3', loading: false });
    // expiresAt = end of the attempt + 2h (the attempt ends a moment before the task's record says so)
    const expires = Date.parse(hint!.expiresAt);
    expect(Math.abs(expires - (ended + 2 * 3_600_000))).toBeLessThan(5_000);
    expect(await cacheOf('w0')).toEqual([]);
    const text = await c.iris(['workers']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/w1 .*llama-3 \((1h59m|2h00m)\)/);
    expect(text.stdout).toMatch(/w0 .* -\n/);

    // Persisted: the cluster comes back with the hint.
    await c.stop();
    const again = await c.start();
    expect(again.code, describeRun(['cluster', 'start'], again)).toBe(0);
    expect(await cacheOf('w1')).toEqual([{ key: 'llama-3', expiresAt: hint!.expiresAt, loading: false }]);
  });
});

/**
 * E2E: what a pipeline's messages say (docs/pipelines.md): a file error always names the file (the
 * cluster's refusals of a stage's values too, and a refused pipeline starts no cluster); a reference
 * inside a one-string `command` is reported at `command`, as written; a root whose stage failed
 * names the stage; a stage failed for good by a reference is not reported as "pending".
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2ECluster, controllersOf, describeRun } from './harness.js';

const FILES: Record<string, string> = {
  'refs.yaml': [
    'name: refs',
    'stages:',
    '  prep:',
    '    command: "echo prep"',
    '  train:',
    '    command: "python x.py ${stages.prep.result.x}"',
  ].join('\n'),
  'memory.yaml': ['name: mem', 'stages:', '  train:', '    memory: 5XB', '    command: [echo, hi]'].join('\n'),
  'tpu.yaml': ['name: tp', 'stages:', '  train:', '    tpu: v5litepod-16', '    command: [echo, hi]'].join('\n'),
  'fails.yaml': [
    'name: fl',
    'stages:',
    '  prep:',
    '    command: "exit 3"',
    '  train:',
    '    needs: [prep]',
    '    command: "echo hi"',
  ].join('\n'),
  'noresult.yaml': [
    'name: nr',
    'stages:',
    '  prep:',
    '    command: "echo prep"',
    '  train:',
    '    needs: [prep]',
    '    command: "echo ${stages.prep.result.checkpoint}"',
  ].join('\n'),
};

describe('pipeline messages', () => {
  let c: E2ECluster;
  beforeAll(async () => {
    c = await E2ECluster.create({ noStart: true });
    for (const [file, text] of Object.entries(FILES)) writeFileSync(path.join(c.cwd, file), `${text}\n`);
  });
  afterAll(async () => {
    await c?.stop();
  });

  const noCluster = () => {
    expect(existsSync(c.socket)).toBe(false);
    expect(controllersOf(c.home)).toEqual([]);
  };

  it('a reference inside a one-string command is reported at `command`, with the file', async () => {
    const r = await c.iris(['submit', '-f', 'refs.yaml']);
    expect(r.code, describeRun(['submit', '-f', 'refs.yaml'], r)).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'Error: refs.yaml: stages.train.command: ${stages.prep.result.x}: stage "prep" is not in needs (needs: none)',
    );
    noCluster();
  });

  it("the cluster's refusal of a stage's value names the file, and starts no cluster", async () => {
    const r = await c.iris(['submit', '-f', 'memory.yaml']);
    expect(r.code, describeRun(['submit', '-f', 'memory.yaml'], r)).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^Error: memory\.yaml: stages\.train\.memory: invalid memory "5XB"/);
    noCluster();
  });

  it('a stage no worker could run names the file, says where to declare a slice, and starts no cluster', async () => {
    const r = await c.iris(['run', '-f', 'tpu.yaml']);
    expect(r.code, describeRun(['run', '-f', 'tpu.yaml'], r)).toBe(5);
    const [error, hint] = r.stderr.split('\n');
    expect(error).toBe(
      'Error: tpu.yaml: stages.train: job /tp/train can never run on this cluster: no tpu workers in the cluster',
    );
    expect(hint).toContain(`declare a TPU slice under \`slices:\` in a new ${path.join(c.cwd, '.irisrc.yaml')}`);
    noCluster();
  });

  it('on a running cluster: the root names its failed stage; a reference failure is not "pending"', async () => {
    await c.start();
    const memory = await c.iris(['submit', '-f', 'memory.yaml']);
    expect(memory.stderr.split('\n')[0]).toMatch(/^Error: memory\.yaml: stages\.train\.memory: /);

    const fails = await c.iris(['run', '-f', 'fails.yaml']);
    expect(fails.code, describeRun(['run', '-f', 'fails.yaml'], fails)).toBe(1);
    expect((await c.job('/fl')).reason).toBe('stage prep FAILED: task /fl/prep/task-0 failed (exit 3)');
    expect(fails.stderr).toContain('job /fl FAILED: stage prep FAILED: task /fl/prep/task-0 failed (exit 3)');

    const noResult = await c.iris(['run', '-f', 'noresult.yaml']);
    expect(noResult.code, describeRun(['run', '-f', 'noresult.yaml'], noResult)).toBe(1);
    const train = await c.job('/nr/train');
    expect(train.state).toBe('FAILED');
    expect(train.reason).toBe('stage_reference_failed: stage prep succeeded without result checkpoint');
    expect(train.reason).not.toMatch(/pending/);
    expect((await c.job('/nr')).reason).toBe(`stage train FAILED: ${train.reason}`);
  });
});

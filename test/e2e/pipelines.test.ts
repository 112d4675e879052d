/**
 * E2E: pipelines on the built binary (`iris submit|run -f pipeline.yaml`, docs/pipelines.md). A
 * pipeline is a root job with one child job per stage; `needs` orders the stages; train publishes
 * a checkpoint path with `iris result set` and eval reads it; the file is checked before anything
 * is submitted (path-precise errors, cycles refused); `--dry-run` prints the stage graph.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JobDetail, JobSummary } from '../../src/api/types.js';
import { describeRun, withCluster } from './harness.js';
import { joined } from '../helpers/regex.js';

const PIPELINE = `name: demo
stages:
  prep:
    command: echo prepared
    cpu: 0.5
  train:
    needs: [prep]
    category: training
    cpu: 0.5
    memory: 128MiB
    command: iris result set checkpoint /ckpt/step-100 && echo trained
  eval:
    needs: [train]
    category: inference
    uses: [checkpoint]
    cpu: 0.5
    env:
      CKPT: \${stages.train.task-0.result.checkpoint}
    command: echo "eval loads \${stages.train.result.checkpoint} (env $CKPT)"
`;

describe('pipelines', () => {
  const c = withCluster('workers:\n  - {name: w0, cpu: 4, memory: 4GiB}\n');
  const file = (name: string, text: string) => {
    const at = path.join(c.cwd, name);
    writeFileSync(at, text);
    return at;
  };

  it('iris run -f runs prep -> train -> eval as child jobs of the pipeline, in order, and exits 0', async () => {
    file('pipeline.yaml', PIPELINE);
    const run = await c.iris(['run', '-f', 'pipeline.yaml']);
    expect(run.code, describeRun(['run', '-f'], run)).toBe(0);
    expect(run.stdout).toContain('prepared');
    expect(run.stdout).toContain('trained');
    // The reference was resolved when eval became ready: its log shows the value, not the text.
    expect(run.stdout).toContain('eval loads /ckpt/step-100 (env /ckpt/step-100)');

    const jobs = await c.json<JobSummary[]>(['jobs']);
    expect(jobs.filter((j) => j.name.startsWith('/demo')).map((j) => [j.name, j.state])).toEqual([
      ['/demo', 'SUCCEEDED'],
      ['/demo/eval', 'SUCCEEDED'],
      ['/demo/prep', 'SUCCEEDED'],
      ['/demo/train', 'SUCCEEDED'],
    ]);
    const prep = await c.job('/demo/prep');
    const train = await c.job('/demo/train');
    const evalJob = await c.job('/demo/eval');
    expect(train.after).toEqual([{ job: '/demo/prep', condition: 'ok' }]);
    expect(train.startedAt! >= prep.finishedAt!).toBe(true);
    expect(evalJob.startedAt! >= train.finishedAt!).toBe(true);

    const status = await c.iris(['status', 'demo']);
    expect(status.stdout).toMatch(/Stages:/);
    expect(status.stdout).toMatch(/prep\s+SUCCEEDED\s+-/);
    expect(status.stdout).toMatch(/eval\s+SUCCEEDED\s+train/);

    // Again under the same name: a new run of the root and of every stage.
    const again = await c.iris(['run', '-f', 'pipeline.yaml']);
    expect(again.code, describeRun(['run', '-f'], again)).toBe(0);
    expect((await c.job('/demo/eval')).run).toBeGreaterThan(evalJob.run);
  });

  it('--dry-run prints the stage graph and when each stage would start, and submits nothing', async () => {
    file('dry.yaml', PIPELINE.replace('name: demo', 'name: dry'));
    const dry = await c.iris(['submit', '-f', 'dry.yaml', '--dry-run']);
    expect(dry.code, describeRun(['submit', '-f', '--dry-run'], dry)).toBe(0);
    expect(dry.stdout).toContain('pipeline /dry: 3 stage(s); dry run, nothing submitted');
    expect(dry.stdout).toMatch(/prep\s+\/dry\/prep\s+-\s+1\s+0\.5\s+256MiB\s+cpu\s+when submitted/);
    expect(dry.stdout).toMatch(/train\s+\/dry\/train\s+prep\s+1\s+0\.5\s+128MiB\s+cpu\s+after prep succeeded/);
    expect(dry.stdout).toMatch(/eval\s+\/dry\/eval\s+train\s+.*after train succeeded/);
    const jobs = await c.json<JobSummary[]>(['jobs']);
    expect(jobs.some((j) => j.name.startsWith('/dry'))).toBe(false);
  });

  it(
    'refuses a file with an unknown stage in needs, or a cycle, naming the path, before submitting ' + 'anything',
    async () => {
      file('typo.yaml', PIPELINE.replace('name: demo', 'name: typo').replace('needs: [prep]', 'needs: [prpe]'));
      const typo = await c.iris(['submit', '-f', 'typo.yaml']);
      expect(typo.code, describeRun(['submit', '-f'], typo)).toBe(2);
      expect(typo.stderr).toContain(
        'typo.yaml: stages.train.needs[0]: unknown stage "prpe" (stages: prep, train, eval)',
      );

      file(
        'cycle.yaml',
        PIPELINE.replace('name: demo', 'name: cycle').replace(
          'cpu: 0.5\n  train',
          'cpu: 0.5\n    needs: [eval]\n  train',
        ),
      );
      const cycle = await c.iris(['submit', '-f', 'cycle.yaml']);
      expect(cycle.code, describeRun(['submit', '-f'], cycle)).toBe(2);
      expect(cycle.stderr).toMatch(
        joined(
          /cycle\.yaml: stages: cycle/,
          / (prep -> eval -> train -> prep|eval -> train -> prep -> eval|train -> prep -> eval -> train)/,
        ),
      );

      file('shape.yaml', 'name: shape\nstages:\n  a:\n    command: [echo]\n    memory: [1]\n');
      const shape = await c.iris(['submit', '-f', 'shape.yaml']);
      expect(shape.code).toBe(2);
      expect(shape.stderr).toContain('shape.yaml: stages.a.memory');

      // A value only the cluster can judge: refused for the whole pipeline, the stage named.
      file(
        'bad.yaml',
        'name: bad\nstages:\n  a:\n    command: [echo]\n  b:\n    needs: [a]\n    command: [echo]\n    memory: 5XB\n',
      );
      const bad = await c.iris(['submit', '-f', 'bad.yaml']);
      expect(bad.code, describeRun(['submit', '-f'], bad)).toBe(2);
      expect(bad.stderr).toContain('stages.b.memory: invalid memory "5XB"');
      const jobs = await c.json<JobSummary[]>(['jobs']);
      expect(jobs.filter((j) => /^\/(typo|cycle|shape|bad)/.test(j.name))).toEqual([]);
    },
  );

  it(
    'a stage whose referenced result never appeared fails with stage_reference_failed; a reference outside needs ' +
      'is refused',
    async () => {
      file(
        'noresult.yaml',
        'name: noresult\nstages:\n  train:\n    cpu: 0.5\n    command: [echo, no checkpoint]\n' +
          '  eval:\n    cpu: 0.5\n    needs: [train]\n    command: [echo, "${stages.train.result.checkpoint}"]\n',
      );
      const run = await c.iris(['run', '-f', 'noresult.yaml']);
      expect(run.code, describeRun(['run', '-f'], run)).toBe(1);
      const evalJob = await c.job('/noresult/eval');
      expect(evalJob).toMatchObject({
        state: 'FAILED',
        reason: 'stage_reference_failed: stage train succeeded without result checkpoint',
      });
      expect(evalJob.taskList[0]!.attempts).toEqual([]);

      file(
        'outside.yaml',
        'name: outside\nstages:\n  train:\n    command: [echo]\n  eval:\n    command: [echo, ' +
          '"${stages.train.result.checkpoint}"]\n',
      );
      const outside = await c.iris(['submit', '-f', 'outside.yaml']);
      expect(outside.code, describeRun(['submit', '-f'], outside)).toBe(2);
      expect(outside.stderr).toContain(
        'outside.yaml: stages.eval.command[1]: ${stages.train.result.checkpoint}: stage "train" is not in needs ' +
          '(needs: none)',
      );
    },
  );

  it('a failed stage fails its dependents and the pipeline', async () => {
    file(
      'fail.yaml',
      'name: fail\nstages:\n  a:\n    cpu: 0.5\n    command: exit 3\n  b:\n    cpu: 0.5\n    needs: [a]\n    ' +
        'command: [echo, never]\n',
    );
    const run = await c.iris(['run', '-f', 'fail.yaml']);
    expect(run.code, describeRun(['run', '-f'], run)).toBe(1);
    const b: JobDetail = await c.job('/fail/b');
    expect(b).toMatchObject({ state: 'FAILED', reason: 'dependency /fail/a failed' });
    expect((await c.job('/fail')).state).toBe('FAILED');
  });
});

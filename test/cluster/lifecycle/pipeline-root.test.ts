import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pipelineRootReason } from '../../../src/cluster/lifecycle/retries.js';
import { JOB_STATES, type JobState } from '../../../src/model/states.js';

const root = { name: '/demo', spec: { pipeline: { stages: [{ name: 'prep' }, { name: 'train' }, { name: 'eval' }] } } };

describe('pipelineRootReason: a failed pipeline root names its stage', () => {
  it('names the first stage, in stage order, that ended without success, with its reason', () => {
    const jobs: Record<string, { state: JobState; reason: string | null }> = {
      '/demo/prep': { state: 'SUCCEEDED', reason: null },
      '/demo/train': { state: 'FAILED', reason: 'task /demo/train/task-0 failed (exit 3)' },
      '/demo/eval': { state: 'FAILED', reason: 'dependency /demo/train failed' },
    };
    expect(pipelineRootReason(root, (name) => jobs[name])).toBe(
      'stage train FAILED: task /demo/train/task-0 failed (exit 3)',
    );
  });

  it('is null for a job that is no pipeline root, or when no stage failed', () => {
    expect(pipelineRootReason({ name: '/j', spec: {} }, () => ({ state: 'FAILED', reason: 'x' }))).toBeNull();
    expect(pipelineRootReason(root, () => ({ state: 'SUCCEEDED', reason: null }))).toBeNull();
    expect(pipelineRootReason(root, () => undefined)).toBeNull();
  });

  it('names a stage exactly when one ended in a state other than SUCCEEDED', () => {
    const state = fc.constantFrom(...JOB_STATES);
    fc.assert(
      fc.property(fc.tuple(state, state, state), (states) => {
        const jobs = new Map(root.spec.pipeline.stages.map((s, i) => [`/demo/${s.name}`, states[i]!]));
        const reason = pipelineRootReason(root, (name) => ({ state: jobs.get(name)!, reason: 'why' }));
        const failed = states.findIndex((s) => !['SUCCEEDED', 'PENDING', 'RUNNING'].includes(s));
        expect(reason).toBe(
          failed < 0 ? null : `stage ${root.spec.pipeline.stages[failed]!.name} ${states[failed]}: why`,
        );
      }),
    );
  });
});

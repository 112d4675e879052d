import { describe, expect, it } from 'vitest';
import { workloadError } from './helpers.js';
import { parseWorkload } from '../../src/sim/workload-file.js';

const GIB = 1024 ** 3;

const fail = workloadError;

const base = { workers: [{ name: 'w' }], models: { llama: { load: '90s' } } };

describe('workload format: cost, GPU memory, category, uses, models and pipelines', () => {
  it('workers: cost-per-hour and gpu {variant, count, memory} (or the shorthand)', () => {
    const w = parseWorkload(
      {
        workers: [
          { name: 'big', count: 2, gpu: { variant: 'H100', count: 8, memory: '80GiB' }, 'cost-per-hour': 12 },
          { name: 'small', gpu: 'L4x1', 'cost-per-hour': 1.2 },
          { name: 'cpu' },
        ],
        jobs: [{ name: 'x', run: 1 }],
      },
      'w.yaml',
    );
    expect(w.workers[1]).toMatchObject({
      id: 'big-1',
      costPerHour: 12,
      device: { type: 'gpu', variant: 'H100', count: 8, memoryBytes: 80 * GIB },
      attributes: { 'device-variant': 'H100' },
    });
    expect(w.workers[2]).toMatchObject({
      id: 'small',
      costPerHour: 1.2,
      device: { type: 'gpu', variant: 'L4', count: 1 },
    });
    expect(w.workers[3]!.costPerHour).toBeUndefined();
  });

  it('jobs: category, uses (one or a list), needs; models give load times; the default limit adds the loads', () => {
    const w = parseWorkload(
      {
        ...base,
        models: { llama: { load: '90s' }, ft: { load: 45 } },
        jobs: [
          { name: 'train', run: '10m', category: 'training', uses: 'llama' },
          { name: 'eval', run: 60, category: 'inference', uses: ['ft', 'llama'], needs: 'train' },
          { name: 'plain', run: 5 },
        ],
      },
      'w.yaml',
    );
    expect(w.models).toEqual({ llama: 90, ft: 45 });
    const [train, evaluation, plain] = w.jobs;
    expect(train).toMatchObject({ category: 'training', uses: ['llama'], timeLimit: 690 });
    expect(evaluation).toMatchObject({
      category: 'inference',
      uses: ['ft', 'llama'],
      needs: ['/train'],
      timeLimit: 60 + 45 + 90,
    });
    expect(plain!.category).toBeUndefined();
    expect(plain!.uses).toBeUndefined();
    expect(plain!.needs).toBeUndefined();
  });

  it('jobs: gpu-memory is the least memory of each GPU, as --gpu-memory', () => {
    const w = parseWorkload({ ...base, jobs: [{ name: 'x', run: 1, gpu: 'H100x2', 'gpu-memory': '40GiB' }] }, 'w.yaml');
    expect(w.jobs[0]!.resources.device).toEqual({ type: 'gpu', variant: 'H100', count: 2, memoryBytes: 40 * GIB });
    expect(fail({ ...base, jobs: [{ name: 'x', run: 1, 'gpu-memory': '40GiB' }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.gpu-memory: applies only to a gpu request/,
    );
  });

  it('errors name the file and the key path', () => {
    expect(fail({ workers: [{ name: 'w', 'cost-per-hour': -1 }], jobs: [{ name: 'x', run: 1 }] })).toMatch(
      /^w\.yaml: workers\[0\]\.cost-per-hour: /,
    );
    expect(
      fail({ workers: [{ name: 'w', gpu: { count: 1, memory: 'lots' } }], jobs: [{ name: 'x', run: 1 }] }),
    ).toMatch(/^w\.yaml: workers\[0\]\.gpu/);
    expect(fail({ ...base, jobs: [{ name: 'x', run: 1, category: 'batch' }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.category: invalid category "batch": expected one of training, inference, other/,
    );
    expect(fail({ ...base, jobs: [{ name: 'x', run: 1, uses: ['llama', 'gpt'] }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.uses\[1\]: unknown model "gpt"/,
    );
    expect(fail({ ...base, jobs: [{ name: 'x', run: 1, uses: 'has space' }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.uses: invalid uses key "has space"/,
    );
    expect(
      fail({
        ...base,
        jobs: [
          { name: 'x', run: 1, needs: ['y'] },
          { name: 'y', run: 1 },
        ],
      }),
    ).toMatch(/^w\.yaml: jobs\[0\]\.needs\[0\]: "y" is not a top-level job declared before this one/);
    expect(fail({ ...base, jobs: [{ name: 'x', run: 1, children: [{ name: 'c', run: 1, needs: 'x' }] }] })).toMatch(
      /^w\.yaml: jobs\[0\]\.children\[0\]\.needs: "needs" is for top-level jobs/,
    );
    expect(fail({ ...base, models: { llama: { load: 'soon' } }, jobs: [{ name: 'x', run: 1 }] })).toMatch(
      /^w\.yaml: models\.llama\.load: /,
    );
    expect(fail({ ...base, models: { llama: {} }, jobs: [{ name: 'x', run: 1 }] })).toMatch(
      /^w\.yaml: models\.llama\.load: missing load time/,
    );
  });
});

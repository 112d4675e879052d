import { describe, expect, it } from 'vitest';
import { parseConstraint } from '../../../../src/model/constraints.js';
import { explainJob } from '../../../../src/cluster/scheduler/placement/explain.js';
import { neverReason } from '../../../../src/cluster/scheduler/index.js';
import type { WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { gpuWorker, job, worker } from '../helpers.js';

/** The pending reason a pass gives `j`: the whole chain, on each worker's own free capacity. */
function pending(j: ReturnType<typeof job>, workers: WorkerView[]): string | null {
  return explainJob(j, 1, { workers, free: (w) => workers[w]!.free });
}

describe('a pending reason names every filter that excluded workers, with counts', () => {
  it('a worker excluded by a constraint is named beside the capacity shortfall of the others', () => {
    const workers = [
      worker('b1', { cpu: 4, attributes: { zone: 'b' } }),
      worker('a1', { cpu: 4, freeCpu: 1, attributes: { zone: 'a' } }),
      worker('a2', { cpu: 4, freeCpu: 0, attributes: { zone: 'a' } }),
    ];
    const j = job('/j', { cpu: 2, constraints: [parseConstraint('zone=a')] });
    expect(pending(j, workers)).toBe(
      'no worker fits: 1 excluded by constraint zone=a, 2 too little free CPU (need 2, largest free 1)',
    );
  });

  it('counts each worker once, under its first failing constraint and its first short resource', () => {
    const workers = [
      worker('x', { attributes: { zone: 'b' } }),
      worker('y', { attributes: { zone: 'a' } }),
      worker('z', { attributes: {} }),
      worker('m', { attributes: { zone: 'a', rack: '1' }, freeCpu: 4, freeMemGiB: 1 }),
      worker('c', { attributes: { zone: 'a', rack: '2' }, freeCpu: 0, freeMemGiB: 0 }),
    ];
    const j = job('/j', { cpu: 2, memGiB: 4, constraints: [parseConstraint('zone=a'), parseConstraint('rack')] });
    expect(pending(j, workers)).toBe(
      'no worker fits: 2 excluded by constraint zone=a, 1 excluded by constraint rack, 1 too little free CPU (need ' +
        '2, largest free 0), 1 too little free memory (need 4GiB, largest free 1GiB)',
    );
  });

  it('names draining workers and workers too small for the job at all', () => {
    const workers = [
      worker('d', { schedulable: false }),
      worker('s', { cpu: 1 }),
      worker('busy', { cpu: 8, freeCpu: 0 }),
    ];
    expect(pending(job('/j', { cpu: 2 }), workers)).toBe(
      'no worker fits: 1 draining, 1 too little CPU (need 2, largest 1), 1 too little free CPU (need 2, largest ' +
        'free 0)',
    );
  });

  it('says gpu worker for a device job and leaves the workers without the device unnamed', () => {
    const workers = [
      worker('cpu'),
      gpuWorker('g1', 'H100', 8, { attributes: { zone: 'b' } }),
      gpuWorker('g2', 'H100', 8, { freeDevices: [0], attributes: { zone: 'a' } }),
    ];
    const j = job('/j', { device: { type: 'gpu', variant: null, count: 2 }, constraints: [parseConstraint('zone=a')] });
    expect(pending(j, workers)).toBe(
      'no gpu worker fits: 1 excluded by constraint zone=a, 1 too few free GPUs (need 2, largest free 1)',
    );
  });

  it('keeps the single-filter wording when one filter excluded every worker', () => {
    const workers = [worker('a', { freeCpu: 1 }), worker('b', { freeCpu: 0 })];
    expect(pending(job('/j', { cpu: 2 }), workers)).toBe('need 2 CPU, largest free worker has 1');
    expect(pending(job('/k', { constraints: [parseConstraint('zone=a')] }), workers)).toBe(
      'no worker satisfies constraint zone=a',
    );
  });

  it('is null when some worker fits, whatever the others were excluded for', () => {
    const workers = [worker('b1', { attributes: { zone: 'b' } }), worker('a1', { attributes: { zone: 'a' } })];
    expect(pending(job('/j', { constraints: [parseConstraint('zone=a')] }), workers)).toBeNull();
  });

  it('submit time: composite over total capacity, draining workers counted as absent', () => {
    const workers = [
      worker('b1', { cpu: 64, attributes: { zone: 'b' } }),
      worker('a1', { cpu: 4, attributes: { zone: 'a' } }),
      worker('d', { cpu: 64, schedulable: false }),
    ];
    const j = job('/j', { cpu: 32, constraints: [parseConstraint('zone=a')] });
    expect(neverReason(j, workers)).toBe(
      'no worker fits: 1 excluded by constraint zone=a, 1 too little CPU (need 32, largest 4)',
    );
  });
});

/**
 * The one reason of a TPU gang that no slice can take now (placement/explain.ts gangNow): a whole
 * slice and a partial gang alike name each slice's needed hosts that cannot take their task, and
 * a host that is off says why in the single-worker words (reason.ts offText); a slice whose hosts
 * were all removed from the config is left out.
 */
import { describe, expect, it } from 'vitest';
import { explainJob } from '../../../../src/cluster/scheduler/placement/explain.js';
import { Reason } from '../../../../src/cluster/scheduler/placement/reason.js';
import type { WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { job, tpuWorker } from '../helpers.js';

const TPU = { type: 'tpu' as const, variant: 'v5litepod-16', chips: 4 };
const gang = (replicas: number) => job('/g', { coschedule: 'tpu-name', replicas, device: TPU, cpu: 1, memGiB: 1 });
const slice = (name: string, hosts: number): WorkerView[] =>
  Array.from({ length: hosts }, (_, k) => tpuWorker(`${name}-${k}`, name, k));
const busy = (w: WorkerView): WorkerView => ({ ...w, free: { ...w.free, devices: [] } });
const disabled = (w: WorkerView, why = 'by user: test'): WorkerView => ({ ...w, schedulable: false, disabled: why });
const draining = (w: WorkerView): WorkerView => ({ ...w, schedulable: false });
const removed = (w: WorkerView): WorkerView => ({ ...w, schedulable: false, removed: true });

/** The pass reason of a gang of `count` on `workers`, each on its own free capacity. */
const reason = (count: number, workers: WorkerView[]) =>
  explainJob(gang(count), count, { workers, free: (w) => workers[w]!.free });
const HEAD = (count: number) => `need hosts 0-${count - 1} of one tpu-name group (task i runs on host i): `;

describe('a TPU gang that no slice can take now names the hosts in its way', () => {
  it('a whole-slice gang with one host busy names it, as a partial gang does', () => {
    const workers = slice('slice-a', 4).map((w, k) => (k === 2 ? busy(w) : w));
    expect(reason(4, workers)).toBe(`${HEAD(4)}slice-a host 2 (slice-a-2) is busy`);
    expect(reason(3, workers)).toBe(`${HEAD(3)}slice-a host 2 (slice-a-2) is busy`);
    expect(reason(2, workers)).toBeNull();
  });

  it('every needed host of a slice is named, three at most, then counted', () => {
    const workers = [...slice('a', 5).map(busy), ...slice('b', 4).map((w, k) => (k % 2 === 1 ? busy(w) : w))];
    expect(reason(4, workers)).toBe(
      `${HEAD(4)}a host 0 (a-0) is busy, host 1 (a-1) is busy, host 2 (a-2) is busy and 1 more host; ` +
        'b host 1 (b-1) is busy, host 3 (b-3) is busy',
    );
  });

  it('a disabled or draining host says so in the words of the single-worker reason', () => {
    const a = slice('a', 4);
    const off = [disabled(a[0]!), a[1]!, draining(a[2]!), busy(a[3]!)];
    expect(reason(4, off)).toBe(
      `${HEAD(4)}a host 0 (a-0) is disabled (by user: test), host 2 (a-2) is draining, host 3 (a-3) is busy`,
    );
    expect(reason(2, off)).toBe(`${HEAD(2)}a host 0 (a-0) is disabled (by user: test)`);
    // The same words as the schedulable filter's reason for that worker.
    const single = (w: WorkerView) => new Reason('schedulable', gang(1), w).message;
    expect(single(off[0]!)).toBe('worker a-0 is disabled (by user: test)');
    expect(single(off[2]!)).toBe('worker a-2 is draining');
    expect(single(removed(a[1]!))).toBe('worker a-1 is not in the config');
  });

  it('a host the job can never use, even enabled, cannot run it', () => {
    const a = slice('a', 3);
    a[0] = disabled({ ...a[0]!, device: { ...a[0]!.device, variant: 'v4-8' } });
    const workers = [...a, ...slice('b', 3).map((w, k) => (k === 1 ? busy(w) : w))];
    expect(reason(2, workers)).toBe(`${HEAD(2)}a host 0 (a-0) cannot run it; b host 1 (b-1) is busy`);
  });

  it('a slice removed from the config is left out; a removed host of a slice still in it is named', () => {
    const workers = [...slice('a', 2).map((w, k) => (k === 0 ? busy(w) : w)), ...slice('b', 2).map(removed)];
    expect(reason(2, workers)).toBe(`${HEAD(2)}a host 0 (a-0) is busy`);
    const partly = [...slice('a', 3).map((w, k) => (k === 2 ? removed(w) : w)), ...slice('b', 3).map(busy)];
    expect(reason(3, partly)).toBe(
      `${HEAD(3)}a host 2 (a-2) is not in the config; b host 0 (b-0) is busy, host 1 (b-1) is busy, host 2 (b-2) ` +
        'is busy',
    );
    // Removed hosts never come back by themselves: a gang only they could complete is short of a group.
    expect(reason(3, partly.slice(0, 3))).toBe('need 3 workers in one tpu-name group, largest group has 2');
  });

  it('a slice short only of disabled hosts is named, not counted out as never', () => {
    const workers = slice('a', 4).map((w, k) => (k === 1 ? disabled(w, 'elastic: idle 1m') : w));
    expect(reason(4, workers)).toBe(`${HEAD(4)}a host 1 (a-1) is disabled (elastic: idle 1m)`);
    // At submit (no free capacity known), a disabled host counts as present: the gang can run.
    expect(explainJob(gang(4), 4, { workers: slice('a', 4) })).toBeNull();
    // A slice too small even with every host up stays a never reason.
    expect(reason(5, workers)).toBe('need 5 workers in one tpu-name group, largest group has 3');
  });

  it('every host busy: still the hosts, not `largest free group has 0`', () => {
    expect(reason(2, slice('a', 2).map(busy))).toBe(`${HEAD(2)}a host 0 (a-0) is busy, host 1 (a-1) is busy`);
  });

  it('groups without tpu-worker-id keep the group-size reason', () => {
    const racks = ['r0', 'r1', 'r2'].map((id, k) => ({
      ...tpuWorker(id, 'x', 0),
      attributes: { 'tpu-name': 'x' },
      ...(k === 0 ? { free: { cpuMillis: 0, memoryBytes: 0, devices: [] } } : {}),
    }));
    expect(reason(3, racks)).toBe('need 3 workers in one tpu-name group, largest free group has 2');
  });
});

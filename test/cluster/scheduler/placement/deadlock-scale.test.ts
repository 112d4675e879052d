/**
 * A waiting ancestor is found without a walk over everything it waits on
 * (scheduler/placement/deadlock.ts waitingAncestors): a pipeline's root waits on each of its N
 * stages, and each pass asks about the stage it leaves pending. The work counted is the names read
 * from the hold's list of waited jobs, per stage asked about, at 1,000 and 10,000 stages: the list
 * is read once (an index kept with it), not once per question (N² over a chain's run).
 * Which waited name is reported stays the first of the list whose subtree holds the job.
 */
import { describe, expect, it } from 'vitest';
import { waitingAncestors, type WaitingHold } from '../../../../src/cluster/scheduler/placement/deadlock.js';
import { GiB } from '../helpers.js';

/** A list of names that counts each element read. */
function counted(names: string[]): { list: string[]; reads: () => number } {
  let reads = 0;
  const list = new Proxy(names, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { list, reads: () => reads };
}

function rootHold(waitingOn: readonly string[]): WaitingHold {
  return { task: '/p/task-0', job: '/p', waitingOn, worker: 'w1', cpuMillis: 0, memoryBytes: GiB, devices: [] };
}

describe('waitingAncestors over a root waiting on every stage', () => {
  it('reads a bounded number of waited names per stage asked about, at 1,000 and 10,000 stages', () => {
    for (const n of [1_000, 10_000]) {
      const { list, reads } = counted(Array.from({ length: n }, (_, i) => `/p/s${i}`));
      const holds = [rootHold(list)];
      for (let i = 0; i < n; i++) {
        const found = waitingAncestors(`/p/s${i}`, holds);
        expect(found.length === 1 && found[0]!.on === `/p/s${i}`).toBe(true);
      }
      expect(reads() / n).toBeLessThanOrEqual(2);
    }
  });

  it('names the first waited job (in the wait order) whose subtree holds the job', () => {
    const holds = [rootHold(['/p/other', '/p/a/b', '/p/a'])];
    expect(waitingAncestors('/p/a/b/c', holds).map((a) => a.on)).toEqual(['/p/a/b']);
    expect(waitingAncestors('/p/a/x', holds).map((a) => a.on)).toEqual(['/p/a']);
    expect(waitingAncestors('/p/z', holds)).toEqual([]);
    // A job is not its own waiting ancestor, nor one outside the holder's subtree.
    expect(waitingAncestors('/p', [rootHold(['/p'])])).toEqual([]);
    expect(waitingAncestors('/q/a', [rootHold(['/q/a'])])).toEqual([]);
  });
});

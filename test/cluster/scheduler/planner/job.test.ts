import { describe, expect, it } from 'vitest';
import {
  earliestGang,
  WorkerCalendar,
  type Amounts,
  type WorkerSlot,
} from '../../../../src/cluster/scheduler/planner/index.js';

const cap: Amounts = { cpuMillis: 4000, memoryBytes: 16, devices: 4 };
const fourChips: Amounts = { cpuMillis: 1000, memoryBytes: 1, devices: 4 };

/** 4 workers in 2 groups: a0 a1 (slice "a"), b0 b1 (slice "b"). */
function cluster(): WorkerSlot[] {
  return ['a0', 'a1', 'b0', 'b1'].map((id) => ({ id, group: id[0]!, calendar: new WorkerCalendar(cap) }));
}
const byId = (ws: WorkerSlot[], id: string) => ws.find((w) => w.id === id)!.calendar;
const spans = (ws: WorkerSlot[]) => ws.map((w) => w.calendar.size);

describe('earliestGang', () => {
  it('starts now on the first group with enough free workers', () => {
    const ws = cluster();
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 0, workers: ['a0', 'a1'], group: 'a' });
  });

  it('waits for the group that frees up first, never mixing groups', () => {
    const ws = cluster();
    byId(ws, 'a0').add(0, 50, fourChips); // slice a busy until 50 (one worker is enough to block it)
    byId(ws, 'b1').add(0, 30, fourChips); // slice b busy until 30
    // a1 and b0 are free now, but they are in different groups.
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 30, workers: ['b0', 'b1'], group: 'b' });
    expect(spans(ws)).toEqual([1, 0, 0, 1]);
  });

  it('needs all members free for the whole duration at one time', () => {
    const ws = cluster();
    byId(ws, 'a0').add(0, 10, fourChips);
    byId(ws, 'a1').add(15, 25, fourChips); // a0 free at 10 but a1 busy from 15: a 10-long window starts at 25
    byId(ws, 'b0').add(0, 100, fourChips);
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 25, workers: ['a0', 'a1'], group: 'a' });
    expect(earliestGang(ws, 0, 5, fourChips, 2)).toEqual({ start: 10, workers: ['a0', 'a1'], group: 'a' });
  });

  it('a gang larger than every group never starts', () => {
    expect(earliestGang(cluster(), 0, 10, fourChips, 3)).toEqual({ start: Infinity, workers: [], group: null });
  });

  it('workers without a group form the null group (a gang with no co-scheduling attribute)', () => {
    const ws = ['w0', 'w1', 'w2'].map((id) => ({ id, calendar: new WorkerCalendar(cap) }));
    ws[1]!.calendar.add(0, 20, fourChips);
    expect(earliestGang(ws, 0, 10, fourChips, 3)).toEqual({ start: 20, workers: ['w0', 'w1', 'w2'], group: null });
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 0, workers: ['w0', 'w2'], group: null });
  });

  it('in a host-ordered group (TPU hosts) waits for hosts 0..n-1, never taking a later free host', () => {
    const hosts = (group: string) =>
      [0, 1, 2, 3].map((host) => ({ id: `${group}${host}`, group, host, calendar: new WorkerCalendar(cap) }));
    const ws: WorkerSlot[] = [...hosts('a'), ...hosts('b')];
    byId(ws, 'a0').add(0, 40, fourChips); // hosts a1-a3 are free, but task 0 must run on a0
    byId(ws, 'b1').add(0, 60, fourChips);
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 40, workers: ['a0', 'a1'], group: 'a' });
    byId(ws, 'a1').add(40, 80, fourChips); // a0 then a1 busy: hosts 0-1 of a only from 80, of b from 60
    expect(earliestGang(ws, 0, 10, fourChips, 2)).toEqual({ start: 60, workers: ['b0', 'b1'], group: 'b' });
    // A host that is no slot (not a candidate for the job) rules its group out.
    const noA0 = ws.filter((w) => w.id !== 'a0' && w.id[0] !== 'b');
    expect(earliestGang(noA0, 0, 10, fourChips, 2)).toEqual({ start: Infinity, workers: [], group: null });
    expect(spans(ws)).toEqual([1, 1, 0, 0, 0, 1, 0, 0]);
  });
});

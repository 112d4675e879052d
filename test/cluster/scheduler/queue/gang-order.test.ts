/**
 * Gang order under every queue policy and placement mode (placement/gang.ts `pickMembers`): a
 * gang's task k runs on host k of one TPU slice (its k-th host by tpu-worker-id), never on a later
 * free host in place of a busy one; a gang whose slice has host k busy waits, or is reserved on
 * hosts 0..n-1 of a slice, with a reason naming the busy host.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLACEMENT_MODES } from '../../../../src/cluster/scheduler/placement/modes.js';
import { placementOptions } from '../../../../src/cluster/scheduler/placement/registry.js';
import { QUEUE_POLICIES, QueueScheduler, type QueuePolicy } from '../../../../src/cluster/scheduler/queue/index.js';
import type { Plan, RunningAllocation, Snapshot, WorkerView } from '../../../../src/cluster/scheduler/types.js';
import { tpuWorker } from '../helpers.js';
import { hold, snap, timed, where } from './helpers.js';

const TPU = (chips: number) => ({ type: 'tpu' as const, variant: 'v5litepod-16', chips });
const gang = (name: string, replicas: number, o: { chips?: number; cpu?: number; at?: number; limit?: number } = {}) =>
  timed(name, o.limit ?? 100, {
    cpu: o.cpu ?? 1,
    memGiB: 0,
    device: TPU(o.chips ?? 4),
    coschedule: 'tpu-name',
    replicas,
    rootSubmittedAt: o.at ?? 0,
  });
/** Slice `name` with `hosts` hosts, listed in the reverse of tpu-worker-id order. */
const slice = (name: string, hosts: number): WorkerView[] =>
  Array.from({ length: hosts }, (_, k) => tpuWorker(`${name}-${hosts - 1 - k}`, name, hosts - 1 - k));
/** Host `id` of a slice busy with all its chips until `until`. */
const busyHost = (id: string, until: number): RunningAllocation =>
  hold(`/busy-${id}/task-0`, id, 1, until, { devices: 4 });

const RESERVING: ReadonlySet<QueuePolicy> = new Set(['easy', 'conservative', 'hybrid']);
const MODES = PLACEMENT_MODES.map((mode) => ({ mode, profile: placementOptions({ mode }) }));
const everyPolicyAndMode = QUEUE_POLICIES.flatMap((policy) =>
  MODES.map(({ mode, profile }) => ({ policy, mode, profile })),
);

describe('a gang takes hosts 0..n-1 of one slice under every queue policy and placement mode', () => {
  it.each(everyPolicyAndMode)('$policy / $mode: host 0 busy, the 2-task gang waits for it', ({ policy, profile }) => {
    const scheduler = new QueueScheduler({ policy }, profile);
    const first = scheduler.pass(snap([gang('/g', 2)], slice('a', 4), [busyHost('a-0', 1500)]));
    expect(first.placements).toEqual([]);
    expect(first.reasons.get('/g')).toMatch(
      /^need hosts 0-1 of one tpu-name group \(task i runs on host i\): a host 0 \(a-0\) is busy/,
    );
    const reserved = scheduler.state.reserved.get('/g')?.reservation;
    if (RESERVING.has(policy)) {
      expect(reserved?.start).toBe(1500);
      expect(reserved?.workers).toEqual(['a-0', 'a-1']);
      expect(first.reasons.get('/g')).toMatch(/; reserved to start at <t:1500>$/);
    } else {
      expect(reserved).toBeUndefined();
    }
    // Host 0 is free again: task 0 on tpu-worker-id 0, task 1 on 1.
    const second = scheduler.pass(snap([gang('/g', 2)], slice('a', 4), [], 1500));
    expect(where(second)).toEqual({ '/g/task-0': 'a-0', '/g/task-1': 'a-1' });
  });

  it.each(everyPolicyAndMode)(
    '$policy / $mode: a slice with host 1 busy is passed over for one whose hosts 0-1 are free',
    ({ policy, profile }) => {
      const workers = [...slice('a', 4), ...slice('b', 2)];
      const plan = new QueueScheduler({ policy }, profile).pass(
        snap([gang('/g', 2)], workers, [busyHost('a-1', 1500)]),
      );
      expect(where(plan)).toEqual({ '/g/task-0': 'b-0', '/g/task-1': 'b-1' });
    },
  );

  it('a draining host is named in the single-worker words, and the slice cannot be reserved', () => {
    const workers = slice('a', 3).map((w) => (w.id === 'a-0' ? { ...w, schedulable: false } : w));
    const scheduler = new QueueScheduler({ policy: 'easy' });
    const plan = scheduler.pass(snap([gang('/g', 2)], workers, []));
    expect(plan.placements).toEqual([]);
    expect(plan.reasons.get('/g')).toBe(
      'need hosts 0-1 of one tpu-name group (task i runs on host i): a host 0 (a-0) is draining; ' +
        'no start can be reserved on the current workers',
    );
  });

  it('the reason names the blocking host of each slice, three at most', () => {
    const workers = ['a', 'b', 'c', 'd', 'e'].flatMap((s) => slice(s, 3));
    const running = [busyHost('a-0', 1500), busyHost('b-1', 1500), busyHost('c-0', 1500), busyHost('d-1', 1500)];
    running.push(busyHost('e-0', 1500));
    const plan = new QueueScheduler({ policy: 'fcfs' }).pass(snap([gang('/g', 2)], workers, running));
    expect(plan.reasons.get('/g')).toBe(
      'need hosts 0-1 of one tpu-name group (task i runs on host i): a host 0 (a-0) is busy; ' +
        'b host 1 (b-1) is busy; c host 0 (c-0) is busy; 2 more groups likewise',
    );
  });
});

// Random slices (1-3, of 1-4 hosts each, listed in random order), random occupancy (each host
// free, or running a task with 1-4 chips until a random end) and 1-3 gangs of 1-4 tasks.
const sliceArb = fc.array(
  fc.record({
    chips: fc.integer({ min: 0, max: 4 }),
    cpu: fc.integer({ min: 0, max: 8 }),
    until: fc.integer({ min: 1001, max: 1400 }),
    sortKey: fc.integer(),
  }),
  { minLength: 1, maxLength: 4 },
);
const gangArb = fc.record({
  replicas: fc.integer({ min: 1, max: 4 }),
  chips: fc.integer({ min: 1, max: 4 }),
  cpu: fc.integer({ min: 1, max: 8 }),
  limit: fc.integer({ min: 10, max: 500 }),
});
const scenarioArb = fc.record({
  slices: fc.array(sliceArb, { minLength: 1, maxLength: 3 }),
  gangs: fc.array(gangArb, { minLength: 1, maxLength: 3 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): Snapshot {
  const hosts: Array<{ worker: WorkerView; key: number }> = [];
  const running: RunningAllocation[] = [];
  s.slices.forEach((hostsOf, i) =>
    hostsOf.forEach((h, k) => {
      const worker = tpuWorker(`s${i}-${k}`, `s${i}`, k);
      hosts.push({ worker, key: h.sortKey });
      if (h.chips > 0 || h.cpu > 0)
        running.push(hold(`/r${i}-${k}/task-0`, worker.id, h.cpu, h.until, { devices: h.chips }));
    }),
  );
  hosts.sort((a, b) => a.key - b.key);
  const jobs = s.gangs.map((g, i) => gang(`/g${i}`, g.replicas, { chips: g.chips, cpu: g.cpu, at: i, limit: g.limit }));
  return snap(
    jobs,
    hosts.map((h) => h.worker),
    running,
  );
}

const hostOf = (w: WorkerView) => ({ slice: w.attributes['tpu-name']!, host: Number(w.attributes['tpu-worker-id']) });

/** Free room of each worker after the plan's placements (and, under first-fit, not given to a gang this pass). */
function roomAfter(snapshot: Snapshot, plan: Plan, policy: QueuePolicy) {
  const used = new Map<string, { cpu: number; chips: number }>();
  for (const p of plan.placements) {
    const res = snapshot.jobs.get(p.job)!.resources;
    const u = used.get(p.workerId) ?? { cpu: 0, chips: 0 };
    used.set(p.workerId, { cpu: u.cpu + res.cpuMillis, chips: u.chips + p.deviceIndices.length });
  }
  return (w: WorkerView, cpuMillis: number, chips: number): boolean => {
    const u = used.get(w.id);
    if (policy === 'first-fit' && u) return false;
    return w.free.cpuMillis - (u?.cpu ?? 0) >= cpuMillis && w.free.devices.length - (u?.chips ?? 0) >= chips;
  };
}

function checkGangOrder(policy: QueuePolicy, profile: (typeof MODES)[number]['profile']): void {
  fc.assert(
    fc.property(scenarioArb, (s) => {
      const snapshot = build(s);
      const scheduler = new QueueScheduler({ policy }, profile);
      const plan = scheduler.pass(snapshot);
      const byId = new Map(snapshot.workers.map((w) => [w.id, w]));
      const taskIndex = (task: string) => Number(task.slice(task.lastIndexOf('-') + 1));
      // Whenever a gang starts, task i is on host i of one slice.
      const slicesOf = new Map<string, Set<string>>();
      for (const p of plan.placements) {
        const { slice: value, host } = hostOf(byId.get(p.workerId)!);
        expect(host, `${p.task} on ${p.workerId}`).toBe(taskIndex(p.task));
        slicesOf.set(p.job, (slicesOf.get(p.job) ?? new Set()).add(value));
      }
      for (const values of slicesOf.values()) expect(values.size).toBe(1);
      // A reservation holds hosts 0..n-1 of one slice, part k on host k.
      for (const [name, b] of scheduler.state.reserved) {
        const r = b.reservation!;
        const hosts = r.workers.map((id) => hostOf(byId.get(id)!));
        expect(
          hosts.map((h) => h.host),
          name,
        ).toEqual(hosts.map((_, k) => k));
        expect(new Set(hosts.map((h) => h.slice)).size).toBe(1);
      }
      // The first gang in queue order starts whenever some slice has room on its hosts 0..n-1.
      const room = roomAfter(snapshot, { placements: [], reasons: new Map() }, policy);
      const fitsOn = (name: string, roomOf: typeof room): boolean => {
        const job = snapshot.jobs.get(name)!;
        const chips = job.resources.device?.type === 'tpu' ? job.resources.device.chips : 0;
        return s.slices.some((hosts, i) =>
          Array.from({ length: job.replicas }, (_, k) => byId.get(`s${i}-${k}`)).every(
            (w) => w !== undefined && roomOf(w, job.resources.cpuMillis, chips),
          ),
        );
      };
      if (fitsOn('/g0', room)) expect(slicesOf.has('/g0'), 'the first gang fits on hosts 0..n-1').toBe(true);
      // A gang left waiting while hosts 0..n-1 of a slice still have room waits for the policy
      // (a reservation it would delay, or strict order), never for a capacity reason.
      const after = roomAfter(snapshot, plan, policy);
      for (const name of snapshot.jobs.keys()) {
        if (slicesOf.has(name) || !fitsOn(name, after)) continue;
        expect(plan.reasons.get(name), `${name} waits with room on hosts 0..n-1`).toMatch(
          /would delay|planned for other work|waiting behind/,
        );
      }
    }),
    { numRuns: 120 },
  );
}

describe('gang order property: task i on host i, and no gang left waiting with its hosts free', () => {
  for (const policy of QUEUE_POLICIES) {
    for (const { mode, profile } of MODES.filter((m) => m.mode === 'first-fit' || m.mode === 'adaptive')) {
      it(`${policy} / ${mode}`, () => checkGangOrder(policy, profile));
    }
  }
});

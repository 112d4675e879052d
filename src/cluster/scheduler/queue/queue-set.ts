/**
 * QueueSet: the cluster's queues (config `queues:`, docs/configuration.md "Named queues") over one
 * set of workers, shared by the controller and the simulator. Each queue is a QueueScheduler
 * (queue-scheduler.ts) with its own policy and depths; a job belongs to the queue its
 * SchedulerJob names, and runs only on the workers the queue's constraints admit (they are added
 * to the job's own constraints, so the one placement chain enforces them).
 *
 * Design: one scheduling pass runs the queues' passes one after another, each on a slice of the
 * snapshot (its jobs and pending tasks), and hands each queue what the queues before it decided:
 * their placements (taken out of the workers' free capacity, entered as running tasks until their
 * planned end, added to their users' usage) and the reservations every other queue holds (entered
 * as future holds on the worker calendars: RunningAllocation.startsAt, never victims). So there is
 * still one calendar per worker as a pass sees it, and what one queue reserves on a shared worker
 * the other queues do not take: a later start overlapping it is refused by the planner as within
 * one queue. This keeps each policy's loop (pass.ts) as it is, pure and unchanged, rather than
 * teaching one loop several policies at once.
 *
 * Guarantees:
 * - Without named queues, or with one queue and no `workers:` constraint, `pass` and `estimate`
 *   are exactly the single QueueScheduler's on the same snapshot (the property test:
 *   test/cluster/scheduler/queue/queue-set.test.ts).
 * - With two or more queues: the queue holding the highest pending band runs first (ties: config
 *   order), so bands order work across queues; quotas count the usage of every queue; claims
 *   (preemption/claims.ts) are placed once for all queues, first. Each queue's pass sees the
 *   resources as changed (other queues' decisions may have moved), and keeps no calendars between
 *   passes. A queue's first-fit policy plans on the calendars, reserving nothing (options.ts
 *   sharedWorkers), so it too keeps off other queues' reservations. A preemption whose victims an
 *   earlier queue's preemption already names is dropped for this pass.
 * - Reasons of jobs left pending name their queue (`queue gpu: …`) when there are 2+ queues.
 */
import { bandRank, DEFAULT_BAND } from '../../../model/band.js';
import type { Constraint } from '../../../model/constraints.js';
import { FIRST_FIT_PLACEMENT } from '../placement/registry.js';
import type { PlacementProfile } from '../placement/scoring.js';
import { withClaims } from '../preemption/claims.js';
import { mergePlan } from '../placement/merge.js';
import type { PlacementMemory, Plan, Preemption, SchedulerJob, SchedulerTask, Snapshot } from '../types.js';
import { QueueScheduler } from './queue-scheduler.js';
import type { QueueOptions } from './options.js';
import { SharedState } from './shared-state.js';

/** One named queue as the scheduler needs it. */
export interface NamedQueueSpec {
  name: string;
  /** Its policy and depths (defaults filled in by queueOptions). */
  options: Partial<QueueOptions>;
  /** The workers it may use; empty: every worker. */
  workers: readonly Constraint[];
}

/** A named queue as the config (and a workload file) gives it. */
export interface ConfiguredQueue {
  name: string;
  workers: readonly Constraint[];
  policy: QueueOptions['policy'];
  depth: number;
  reservationDepth: number;
  maxReservationDepth: number;
  timeLimitMs?: number | null;
}

/**
 * The QueueSet's named queues from configured ones; `defaultTimeLimitMs`: the cluster's time limit,
 * for a queue without its own (absent: the queues plan with the base options' default).
 */
export function namedQueueSpecs(
  named: { defaultQueue: string; queues: readonly ConfiguredQueue[] },
  defaultTimeLimitMs?: number,
): { defaultQueue: string; queues: NamedQueueSpec[] } {
  return {
    defaultQueue: named.defaultQueue,
    queues: named.queues.map((q) => {
      const limit = q.timeLimitMs ?? defaultTimeLimitMs;
      return {
        name: q.name,
        workers: q.workers,
        options: {
          policy: q.policy,
          queueDepth: q.depth,
          reservationDepth: q.reservationDepth,
          maxReservationDepth: q.maxReservationDepth,
          ...(limit === undefined ? {} : { defaultTimeLimitMs: limit }),
        },
      };
    }),
  };
}

/** One named queue's settings, as `iris queue` and `cluster status` list them. */
export interface NamedQueueListing {
  name: string;
  policy: string;
  queueDepth: number;
  reservationDepth: number;
  /** Its workers' constraints (`pool=gpu`), empty: every worker. */
  workers: readonly Constraint[];
  /** The queue a job without --queue joins. */
  isDefault: boolean;
}

interface Member {
  name: string | null;
  workers: readonly Constraint[];
  scheduler: QueueScheduler;
  /** Job object -> the same job with the queue's constraints added (kept while the job object lives). */
  withQueue: WeakMap<SchedulerJob, SchedulerJob>;
}

export class QueueSet {
  readonly members: readonly Member[];
  private readonly byName = new Map<string, Member>();
  private readonly defaultMember: Member;
  private memory: PlacementMemory | undefined;

  constructor(
    /** Without named queues: the one queue's options. */
    base: Partial<QueueOptions>,
    readonly placement: PlacementProfile = FIRST_FIT_PLACEMENT,
    /** The named queues in config order (null or empty: none) and the default one's name. */
    named: { queues: readonly NamedQueueSpec[]; defaultQueue: string } | null = null,
  ) {
    const shared = (named?.queues.length ?? 0) > 1;
    const queues = named && named.queues.length > 0 ? named.queues : null;
    this.members = queues
      ? queues.map((q) => ({
          name: q.name,
          workers: q.workers,
          scheduler: new QueueScheduler(
            { ...base, ...q.options, ...(shared ? { sharedWorkers: true } : {}) },
            placement,
          ),
          withQueue: new WeakMap(),
        }))
      : [{ name: null, workers: [], scheduler: new QueueScheduler(base, placement), withQueue: new WeakMap() }];
    for (const m of this.members) if (m.name !== null) this.byName.set(m.name, m);
    this.defaultMember = (named && this.byName.get(named.defaultQueue)) ?? this.members[0]!;
  }

  /** The queue a job runs in (its own, else the default one). */
  memberOf(job: SchedulerJob): Member {
    return (job.queue !== undefined ? this.byName.get(job.queue) : undefined) ?? this.defaultMember;
  }

  /** The default queue's scheduler (the options `iris queue` shows for one queue). */
  get primary(): QueueScheduler {
    return this.defaultMember.scheduler;
  }

  /** The named queues' settings, in config order (none without named queues). */
  listing(): NamedQueueListing[] {
    return this.members.flatMap((m) => {
      if (m.name === null) return [];
      const o = m.scheduler.options;
      const { policy, queueDepth, reservationDepth } = o;
      return [
        { name: m.name, policy, queueDepth, reservationDepth, workers: m.workers, isDefault: m === this.defaultMember },
      ];
    });
  }

  /** The policy of queue `name` (absent or unknown: the default queue's). */
  policyOf(name: string | undefined): string {
    const m = (name !== undefined ? this.byName.get(name) : undefined) ?? this.defaultMember;
    return m.scheduler.options.policy;
  }

  /** The default queue's options. */
  get options(): QueueOptions {
    return this.defaultMember.scheduler.options;
  }

  /** Baseline placement modes' memory, threaded through the queues' passes. */
  get placementMemory(): PlacementMemory | undefined {
    return this.members.length === 1 ? this.members[0]!.scheduler.placementMemory : this.memory;
  }

  set placementMemory(memory: PlacementMemory | undefined) {
    if (this.members.length === 1) this.members[0]!.scheduler.placementMemory = memory;
    else this.memory = memory;
  }

  /** The job with its queue's constraints added (the same object when the queue has none). */
  private constrained(m: Member, job: SchedulerJob): SchedulerJob {
    if (m.workers.length === 0) return job;
    let out = m.withQueue.get(job);
    if (!out) m.withQueue.set(job, (out = { ...job, constraints: [...job.constraints, ...m.workers] }));
    return out;
  }

  /** The snapshot with every job under its queue's constraints (the same snapshot when no queue has any). */
  private withConstraints(snapshot: Snapshot): Snapshot {
    if (this.members.every((m) => m.workers.length === 0)) return snapshot;
    const jobs = new Map<string, SchedulerJob>();
    for (const [name, job] of snapshot.jobs) jobs.set(name, this.constrained(this.memberOf(job), job));
    return { ...snapshot, jobs };
  }

  pass(snapshot: Snapshot, resourcesChanged = true): Plan {
    if (this.members.length === 1)
      return this.members[0]!.scheduler.pass(this.withConstraints(snapshot), resourcesChanged);
    return this.passAll(this.withConstraints(snapshot));
  }

  /** The queues in the order this pass runs them: highest pending band first, then config order. */
  private order(snapshot: Snapshot): Member[] {
    const top = new Map<Member, number>();
    for (const job of snapshot.jobs.values()) {
      const m = this.memberOf(job);
      const rank = bandRank(job.band ?? DEFAULT_BAND);
      if (rank < (top.get(m) ?? Infinity)) top.set(m, rank);
    }
    const index = new Map(this.members.map((m, i) => [m, i]));
    return [...this.members].sort(
      (a, b) => (top.get(a) ?? Infinity) - (top.get(b) ?? Infinity) || index.get(a)! - index.get(b)!,
    );
  }

  private passAll(snapshot: Snapshot): Plan {
    const given = this.memory && !snapshot.placementMemory ? { ...snapshot, placementMemory: this.memory } : snapshot;
    const claimed = withClaims(given, snapshot.claims ?? [], this.placement);
    const claimants = new Set((snapshot.claims ?? []).map((c) => c.job));
    const rest = claimed.rest;
    const out: Plan = { placements: [...claimed.placements], reasons: new Map(), reservations: new Map() };
    const shared = new SharedState(rest, this.members, (job) => this.defaultsOf(this.memberOf(job)));
    // withClaims took the claimants' placements out of the free capacity already.
    shared.place(claimed.placements, rest.jobs, false);
    const byQueue = splitByQueue(rest, (job) => this.memberOf(job));
    const victims = new Set<string>();
    let settled = true;
    let memory = given.placementMemory;
    for (const m of this.order(rest)) {
      const mine = byQueue.get(m);
      const sub: Snapshot = {
        ...rest,
        jobs: mine?.jobs ?? new Map(),
        pending: mine?.pending ?? [],
        workers: shared.workers,
        usage: shared.usage,
        running: shared.runningFor(m),
        otherReservations: shared.reservationsFor(m),
        ...(memory ? { placementMemory: memory } : {}),
      };
      delete sub.claims;
      if (sub.pending.length === 0) {
        shared.reservedBy(m, new Map());
        continue;
      }
      const plan = m.scheduler.passAfterClaims(sub, true, claimants);
      if (plan.placementMemory) memory = plan.placementMemory;
      shared.place(plan.placements, sub.jobs);
      shared.reservedBy(m, m.scheduler.state.reserved);
      out.placements.push(...plan.placements);
      for (const [job, text] of plan.reasons) out.reasons.set(job, text === '' ? text : `queue ${m.name}: ${text}`);
      for (const [job, start] of plan.reservations ?? []) out.reservations!.set(job, start);
      if (!plan.settled) settled = false;
      if (plan.nextExemptEnd !== undefined)
        out.nextExemptEnd = Math.min(out.nextExemptEnd ?? Infinity, plan.nextExemptEnd);
      for (const p of plan.preemptions ?? []) addPreemption(out, p, victims);
    }
    if (settled && claimed.placements.length === 0) out.settled = true;
    if (memory && memory !== given.placementMemory) {
      out.placementMemory = memory;
      this.memory = memory;
    }
    // Merged batches over every queue's placements (a merge group names its queue, so never across).
    return mergePlan(snapshot, out, this.placement);
  }

  /** The default planned duration of a task of queue `m` (its options' default time limit). */
  private defaultsOf(m: Member): number {
    return m.scheduler.options.defaultTimeLimitMs;
  }

  /**
   * When would `job` start if submitted now: its queue's estimate, on the snapshot its queue's pass
   * would see apart from this pass's placements by the queues ahead of it (other queues'
   * reservations held).
   */
  estimate(snapshot: Snapshot, job: SchedulerJob): { start: number | null; reason: string } {
    const m = this.memberOf(job);
    const given = this.withConstraints(snapshot);
    const mineJob = this.constrained(m, job);
    if (this.members.length === 1) return m.scheduler.estimate(given, mineJob);
    const byQueue = splitByQueue(given, (j) => this.memberOf(j));
    const shared = new SharedState(given, this.members, (j) => this.defaultsOf(this.memberOf(j)));
    const mine = byQueue.get(m);
    const sub: Snapshot = {
      ...given,
      jobs: mine?.jobs ?? new Map(),
      pending: mine?.pending ?? [],
      running: shared.runningFor(m),
      otherReservations: shared.reservationsFor(m),
    };
    const answer = m.scheduler.estimate(sub, mineJob);
    return { start: answer.start, reason: `queue ${m.name}: ${answer.reason}` };
  }
}

/** Each queue's jobs and pending tasks (pending order kept). */
function splitByQueue(
  snapshot: Snapshot,
  memberOf: (job: SchedulerJob) => Member,
): Map<Member, { jobs: Map<string, SchedulerJob>; pending: SchedulerTask[] }> {
  const out = new Map<Member, { jobs: Map<string, SchedulerJob>; pending: SchedulerTask[] }>();
  const of = new Map<string, { jobs: Map<string, SchedulerJob>; pending: SchedulerTask[] }>();
  for (const [name, job] of snapshot.jobs) {
    const m = memberOf(job);
    let slice = out.get(m);
    if (!slice) out.set(m, (slice = { jobs: new Map(), pending: [] }));
    slice.jobs.set(name, job);
    of.set(name, slice);
  }
  for (const task of snapshot.pending) of.get(task.job)?.pending.push(task);
  return out;
}

/** A preemption, unless an earlier one of this pass already stops one of its victims. */
function addPreemption(out: Plan, p: Preemption, victims: Set<string>): void {
  if (p.victims.some((v) => victims.has(v))) {
    out.reasons.delete(p.job);
    return;
  }
  for (const v of p.victims) victims.add(v);
  (out.preemptions ??= []).push(p);
}

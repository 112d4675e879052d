/**
 * The last step of a queue-policy pass (pass.ts): what it says about the jobs it did not start.
 * Guarantees, for a pass that read the whole queue (`JobQueue.complete`: the live cluster with
 * quotas, named queues or a baseline placement mode):
 * - every pending job gets a reason in `Plan.reasons`, except standing jobs the walk passed over
 *   (they keep the reason given when they blocked; it names no relative time, so it does not go
 *   stale);
 * - a job the walk looked at and left blocked has its reason on the capacity left after the pass
 *   (a baseline placement mode's own reason first), with its reservation or why none could be
 *   made; over-quota users' jobs say so first;
 * - jobs behind a job the policy stopped at (fcfs) are "waiting behind" it;
 * - jobs past a walk that ended early (nothing more could start: pass.ts) get the reason they
 *   would have got had the walk skipped them, and do not stand: the next pass looks at them again.
 * Which blocked jobs stand (`added`, folded into the next state): those the walk planned (the
 * window) and, once the policy's reservations are used up, every one it looked at.
 * On a pre-ordered snapshot (the simulator's, and the live cluster's ordered queue) jobs the walk
 * never read get no reason. With
 * options.explain false every reason is an empty text, with the same jobs and the same `added`.
 */
import type { Placement } from '../types.js';
import type { Outcome, QueuedJob } from './allocate.js';
import type { PassContext } from './context.js';
import type { JobQueue } from './job-queue.js';
import type { QueueOptions, QueuePolicyRule } from './options.js';
import { Explainer, unreservableText } from './reasons.js';
import { renderBlocked, type Blocked, type QueueState } from './state.js';

/** What the walk did with one job. `planning`: within the window (it stands if still blocked). */
export interface Result {
  q: QueuedJob;
  out: Outcome;
  quota: string | null;
  planning: boolean;
  /** Why the user's hard quota holds the rest of the job (pass.ts); absent: it does not. */
  hold?: string;
}

/** What a pass's walk left for its report (pass.ts Pass). */
export interface Walked {
  readonly ctx: PassContext;
  readonly options: QueueOptions;
  readonly rule: QueuePolicyRule;
  readonly state: QueueState;
  /** The pass number blocked jobs are dated with. */
  readonly number: number;
  readonly placements: readonly Placement[];
  readonly reservations: ReadonlyMap<string, number>;
  /** The policy's reservation depth. */
  readonly limit: number;
  readonly results: readonly Result[];
  readonly window: readonly QueuedJob[];
  /** Window jobs from this index on were not walked (the pass stopped or ended before them). */
  readonly stopAt: number;
  /** The job a policy that stops at the first blocked job stopped at, or null. */
  readonly stoppedBy: string | null;
  readonly deferred: ReadonlyArray<{ q: QueuedJob; planning: boolean }>;
  /** Deferred jobs from this index on were not walked. */
  readonly deferredDone: number;
  /** The rest of the queue past the walk (read on when complete), and the first job of it read already. */
  readonly queue: JobQueue;
  readonly beyond: QueuedJob | null;
  /** True when the walk ended early because nothing more could start (pass.ts). */
  readonly ended: boolean;
  standing(name: string): Blocked | undefined;
}

/** Reasons (into `reasons`) and the blocked jobs that stand (into `added`), per the header. */
export function reportBlocked(p: Walked, reasons: Map<string, string>, added: Map<string, Blocked>): void {
  const { ctx } = p;
  const now = ctx.now;
  const explain = p.options.explain !== false;
  const explainer = explain ? new Explainer(ctx) : null;
  const usedUp = p.reservations.size >= p.limit;
  /** A blocked job's reason without its reservation part, on the capacity left now. */
  const baseOf = (q: QueuedJob, remaining: number, quota: string | null): string => {
    if (explainer === null) return '';
    const base =
      ctx.selector?.reasonFor?.(q.job.name) ??
      explainer.base(q.job, remaining) ??
      explainer.held(p.reservations, q.job.name);
    return quota ? `${quota}; ${base}` : base;
  };
  for (const { q, out, quota, planning, hold } of p.results) {
    const remaining = q.tasks.length - out.placed;
    if (remaining === 0) continue;
    // Held at a hard quota: the capacity is named only when it, too, is short.
    const short = hold !== undefined && explainer ? explainer.base(q.job, remaining) : null;
    const b: Blocked = {
      base: hold === undefined ? baseOf(q, remaining, quota) : !explainer ? '' : short ? `${hold}; ${short}` : hold,
      reservation: out.reservation,
      note: out.unreservable && explainer ? unreservableText(ctx) : null,
      since: p.state.blocked.get(q.job.name)?.since ?? p.number,
      reservedPass: p.number,
    };
    // Past the window a job stands (not retried until resources change) only when no more
    // reservations could be given: else the next pass may reserve it.
    if (planning || usedUp) added.set(q.job.name, b);
    reasons.set(q.job.name, explainer ? renderBlocked(b, now) : '');
  }
  const behind = explainer
    ? `waiting behind ${p.stoppedBy} (queue policy ${p.rule.name} starts jobs strictly in order)`
    : '';
  /** A job the walk did not reach: as if skipped when it ended early, else behind the stop. */
  const unwalked = (q: QueuedJob): string => {
    if (!p.ended) return behind;
    const quota = explainer && ctx.snapshot.quotas.has(q.job.user) ? ctx.quota.overReason(q.job.user) : null;
    return baseOf(q, q.tasks.length, quota);
  };
  for (let i = p.stopAt; i < p.window.length; i++) {
    const q = p.window[i]!;
    if (!p.standing(q.job.name)) reasons.set(q.job.name, unwalked(q));
  }
  // Deferred jobs are walked to the end unless the policy stopped.
  for (let i = p.deferredDone; i < p.deferred.length; i++) {
    const { q } = p.deferred[i]!;
    reasons.set(q.job.name, explainer ? `${ctx.quota.overReason(q.job.user) ?? 'deferred'}; ${behind}` : '');
  }
  // A complete queue is read to its end: past the walk, standing jobs keep their reason.
  if (p.queue.complete) {
    for (let q = p.beyond; q; q = p.queue.next()) {
      const b = p.standing(q.job.name);
      reasons.set(q.job.name, b && explainer ? renderBlocked(b, now) : unwalked(q));
    }
  }
}

/**
 * Pipelines in the simulator: root jobs that `need` earlier root jobs (SimJob.needs).
 *
 * Guarantees: a job with needs is held back from the trace order and released once, at
 * max(its submit, the end of its last need); a need that never ran (skipped) skips its
 * dependents, transitively, with the reason; dependents still held when the run stops are
 * reported with the needs they wait for. Jobs without needs pass straight through.
 * - A need is a live `--after NEED` (condition `ok`) and is judged by the live rule
 *   (lifecycle/dependencies.ts): a need that ended otherwise than SUCCEEDED (a stage stopped by
 *   its time limit ends TIMEOUT) can never be met, so its dependents never run: they are skipped
 *   with the live cluster's reason (`dependency /train ended TIMEOUT`), and what needs them in turn
 *   with `dependency /eval failed`, as the live cascade ends them FAILED.
 */
import type { SimJob, SkippedJob } from './workload.js';
import type { JobState } from '../model/states.js';
import { dependencyFailureReason, dependencyOutcome } from '../cluster/lifecycle/dependencies.js';

export class Pipelines {
  /** Need name -> jobs waiting for it. */
  private readonly dependents = new Map<string, SimJob[]>();
  /** Held job -> needs not ended yet. */
  private readonly open = new Map<SimJob, Set<string>>();
  /** Root jobs in trace order, without the held ones. */
  readonly roots: SimJob[] = [];

  constructor(jobs: readonly SimJob[]) {
    for (const job of jobs) {
      if (!job.needs?.length) {
        this.roots.push(job);
        continue;
      }
      this.open.set(job, new Set(job.needs));
      for (const need of job.needs) {
        const list = this.dependents.get(need) ?? [];
        list.push(job);
        this.dependents.set(need, list);
      }
    }
  }

  /**
   * Root job `name` ended in `state`: the jobs it releases (every need of theirs has ended as
   * `ok` asks), and, when it did not succeed, the held jobs it skips (`skipped`).
   */
  ended(name: string, state: JobState): { released: SimJob[]; skipped: Array<{ job: SimJob; reason: string }> } {
    if (dependencyOutcome('ok', state) === 'never') {
      const why = (need: string): string =>
        dependencyFailureReason({ job: need, condition: 'ok' }, need === name ? state : 'FAILED');
      return { released: [], skipped: this.skipped(name, why) };
    }
    const out: SimJob[] = [];
    for (const job of this.dependents.get(name) ?? []) {
      const open = this.open.get(job);
      if (!open) continue;
      open.delete(name);
      if (open.size === 0) {
        this.open.delete(job);
        out.push(job);
      }
    }
    return { released: out, skipped: [] };
  }

  /**
   * Root job `name` never ran (or can never meet a need): its held dependents (transitively) are
   * skipped, depth-first (each one followed by the jobs its skip skips), each with `reason(need)`
   * for the need that skips it. A loop: a chain of needs may be long.
   */
  skipped(
    name: string,
    reason: (need: string) => string = (need) => `needs ${need}, which never ran`,
  ): Array<{ job: SimJob; reason: string }> {
    const out: Array<{ job: SimJob; reason: string }> = [];
    const stack: Array<{ name: string; dependents: readonly SimJob[]; next: number }> = [
      { name, dependents: this.dependents.get(name) ?? [], next: 0 },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next >= top.dependents.length) {
        stack.pop();
        continue;
      }
      const job = top.dependents[top.next++]!;
      if (!this.open.delete(job)) continue;
      out.push({ job, reason: reason(top.name) });
      stack.push({ name: job.name, dependents: this.dependents.get(job.name) ?? [], next: 0 });
    }
    return out;
  }

  /** Jobs still held, with what they wait for. */
  held(): SkippedJob[] {
    return [...this.open].map(([job, needs]) => ({
      name: job.name,
      reason: `waits for ${[...needs].join(', ')}, which never ended`,
    }));
  }
}

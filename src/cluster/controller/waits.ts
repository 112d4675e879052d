/**
 * Which running attempts are blocked in a wait, and on what (docs/architecture.md, "Waiting").
 *
 * Guarantees:
 * - A wait is registered by the server for the duration of one long-poll request made with a
 *   task token (`begin` when the request starts waiting, `end` when it returns, times out or the
 *   client goes away), so the registry holds exactly the waits in progress; none survive a
 *   restart of the cluster (their connections do not either).
 * - An attempt releases its CPU while at least one of its waits is on jobs of its own subtree
 *   only (`releasesCpu`): those jobs can need the CPU it holds. A wait on anything else (an
 *   unrelated job) keeps the CPU, as Slurm would.
 * - Every change is announced on `changed`, so the controller can run a pass at once: a begun
 *   wait frees CPU, an ended one takes it back.
 * Pure bookkeeping: no clock, no I/O.
 */
import { isWithin } from '../../model/names.js';
import type { TaskIdentity } from '../../model/caller.js';
import { attemptKey } from '../state/keys.js';

export interface WaitEntry {
  readonly id: number;
  readonly caller: TaskIdentity;
  /** Canonical job names waited on (their subtrees included). */
  readonly jobs: readonly string[];
  /** True when every waited job lies under the caller's own job: the wait releases the CPU. */
  readonly releasesCpu: boolean;
}

/** The rule of release: a wait on jobs of the waiter's own subtree only. */
export function releasesCpu(caller: TaskIdentity, jobs: readonly string[]): boolean {
  return jobs.length > 0 && jobs.every((job) => job !== caller.job && isWithin(job, caller.job));
}

export class WaitRegistry {
  private nextId = 1;
  private readonly byAttempt = new Map<string, WaitEntry[]>();
  private readonly listeners = new Set<() => void>();

  /** Register a wait of `caller` on `jobs`; pair with `end`. */
  begin(caller: TaskIdentity, jobs: readonly string[]): WaitEntry {
    const entry: WaitEntry = { id: this.nextId++, caller, jobs: [...jobs], releasesCpu: releasesCpu(caller, jobs) };
    const key = attemptKey(caller.task, caller.attempt);
    const list = this.byAttempt.get(key);
    if (list) list.push(entry);
    else this.byAttempt.set(key, [entry]);
    this.emit();
    return entry;
  }

  /** The wait is over (answered, timed out or abandoned). Ending twice is harmless. */
  end(entry: WaitEntry): void {
    const key = attemptKey(entry.caller.task, entry.caller.attempt);
    const list = this.byAttempt.get(key);
    if (!list) return;
    const rest = list.filter((e) => e.id !== entry.id);
    if (rest.length === list.length) return;
    if (rest.length === 0) this.byAttempt.delete(key);
    else this.byAttempt.set(key, rest);
    this.emit();
  }

  /** Each attempt blocked in a wait: its key (state/keys.ts attemptKey), its waits, and whether its CPU is released. */
  *blocked(): Iterable<{ key: string; caller: TaskIdentity; waits: readonly WaitEntry[]; releasesCpu: boolean }> {
    for (const [key, list] of this.byAttempt)
      yield { key, caller: list[0]!.caller, waits: list, releasesCpu: list.some((e) => e.releasesCpu) };
  }

  /** Attempt keys (state/keys.ts attemptKey) whose CPU is released right now. */
  released(): Set<string> {
    const out = new Set<string>();
    for (const { key, releasesCpu } of this.blocked()) if (releasesCpu) out.add(key);
    return out;
  }

  /** Every wait in progress. */
  all(): WaitEntry[] {
    return [...this.byAttempt.values()].flat();
  }

  /** Called after every begin and end; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * Gives a burst's garbage back when the cluster goes quiet. A cluster that has just run many short
 * tasks holds a V8 heap grown to its peak: the young generation at its largest (two 8 MiB
 * semi-spaces) and an old generation up to 1.5 times its live size (client/launcher.ts's flags),
 * mostly garbage of the finished tasks. V8 keeps that memory for as long as the process stays idle
 * (its memory reducer does not run here: 2,000 finished tasks left ~125 MB resident 30 s later,
 * ~93 MB after one collection; docs/benchmarks.md, "Memory").
 *
 * Guarantees:
 * - When a job reaches a final state and nothing runs and nothing is queued, and the physical
 *   size of V8's old generation (every space but the young one) has grown by
 *   COMPACT_AFTER_GROWTH_BYTES or more since the last compaction (or since start), one full,
 *   memory-reducing collection runs (~40–60 ms after 2,000 tasks on this machine), which also
 *   shrinks the young generation and returns freed pages to the system. So a burst pays one
 *   compaction, and a stream of single short jobs one every many jobs (each grows the heap by
 *   little), never one per job.
 * - It runs after the event that triggered it has reached everyone (setImmediate), so no client
 *   learns of a job's end later because of it; the conditions are checked again at that moment
 *   (a submission meanwhile cancels it), and many jobs ending at once give one compaction.
 * - `request()`: finished jobs left memory (cluster/controller/finished-archiver.ts, at most once a
 *   second): one compaction if the cluster is quiet on the next turn, whatever the growth.
 * - `compactNow()` runs one such collection at once (the daemon calls it once before its sockets
 *   answer, so the garbage of loading its modules and config is not kept for the cluster's life).
 * - It only acts when the process was started with `--expose-gc` (CLUSTER_NODE_FLAGS): without
 *   it (`iris cluster start --foreground` on a user's Node) it does nothing.
 * - It never throws into the store's event emitter.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import type { ClusterStore, StoreEvent } from '../cluster/state/store.js';
import { isFinalJobState } from '../model/states.js';

/** Growth of the old generation's physical size that makes a quiet moment worth a compaction. */
export const COMPACT_AFTER_GROWTH_BYTES = 8 * 1024 * 1024;

/** A full, memory-reducing collection; null when the process was not started with --expose-gc. */
export type Collect = () => void;

function exposedCollect(): Collect | null {
  const gc = globalThis.gc;
  return gc ? () => void gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }) : null;
}

/**
 * The physical size of every V8 heap space but the young generation: the young generation grows
 * back to its largest within a few jobs after any compaction, so counting it would make every few
 * short jobs pay one (and each compaction costs the recompiling of the code it flushes).
 */
function oldGenerationBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics())
    if (space.space_name !== 'new_space') bytes += space.physical_space_size;
  return bytes;
}

export interface IdleCompaction {
  /** Compactions run so far. */
  readonly count: number;
  /** One compaction now, whatever the heap's growth (nothing without --expose-gc). */
  compactNow(): void;
  /**
   * Finished jobs just left memory (cluster/controller/finished-archiver.ts): their heap is garbage
   * now, though the heap did not grow. One compaction on the next turn if the cluster is quiet
   * then, whatever the growth.
   */
  request(): void;
  stop(): void;
}

export interface CompactionOptions {
  /** The collection to run (default: V8's, through --expose-gc; null: none available). */
  collect?: Collect | null;
  /** The heap's size in bytes (default: the physical size of V8's old generation, oldGenerationBytes). */
  heapBytes?: () => number;
}

export function startIdleCompaction(store: ClusterStore, options: CompactionOptions = {}): IdleCompaction {
  const collect = options.collect === undefined ? exposedCollect() : options.collect;
  const heapBytes = options.heapBytes ?? oldGenerationBytes;
  let baseline = heapBytes();
  let count = 0;
  const compact = (): void => {
    if (!collect) return;
    collect();
    count++;
    baseline = heapBytes();
  };
  const quiet = (): boolean => store.queuedTasks().size === 0 && store.activeAttempts().length === 0;
  /** Whether the cluster is quiet and (unless `any`) its old generation grew enough for a compaction. */
  const due = (any: boolean): boolean => quiet() && (any || heapBytes() - baseline >= COMPACT_AFTER_GROWTH_BYTES);
  let scheduled: NodeJS.Immediate | null = null;
  const check = (any: boolean): void => {
    if (scheduled !== null || !collect) return;
    try {
      if (!due(any)) return;
      scheduled = setImmediate(() => {
        scheduled = null;
        try {
          if (due(any)) compact();
        } catch {
          // a failed compaction changes nothing the cluster relies on
        }
      });
    } catch {
      // as above: never into the store's emitter
    }
  };
  const onChange = (event: StoreEvent): void => {
    if (event.type === 'job' && isFinalJobState(event.job.state)) check(false);
  };
  if (collect) store.events.on('change', onChange);
  return {
    get count() {
      return count;
    },
    compactNow: compact,
    request: () => check(true),
    stop: () => {
      store.events.off('change', onChange);
      if (scheduled !== null) clearImmediate(scheduled);
      scheduled = null;
    },
  };
}

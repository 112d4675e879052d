/**
 * Watches the cluster's Nodes (paged list + watch, watch-loop.ts) and reports the complete set of
 * workers after every change that matters, with the ones that take no new work and why (nodes.ts
 * does the mapping). Guarantees:
 * - Per Node it keeps only what iris reads: the worker it maps to and why it takes no new work
 *   (never the Node object, whose managed fields, images and conditions are most of its size).
 * - A Node event that changes neither (a kubelet's status heartbeat, a new image on the node)
 *   reports nothing: the work per such event is one mapping of that Node, not of the fleet.
 * - Changes arriving together are reported once (coalesced to the next tick). The receiver (the
 *   controller's WorkerFeed) turns them into joins, drains, resumes and removals.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { WorkerSpec } from '../model/types.js';
import type { KubeConnection } from './client.js';
import { nodeAvailability, nodeWorker, numberSliceHosts, type NodeObject } from './nodes.js';
import { watchLoop, type WatchLoop } from './watch-loop.js';

export type WorkersListener = (workers: WorkerSpec[], unavailable: Map<string, string>) => void;

/** What iris keeps of one Node. */
export interface NodeState {
  worker: WorkerSpec;
  /** Why it takes no new work; null when it does. */
  unavailable: string | null;
}

/** The state kept of a Node, or null for a Node without a name. */
export function nodeState(node: NodeObject): NodeState | null {
  const worker = nodeWorker(node);
  if (!worker) return null;
  const a = nodeAvailability(node);
  return { worker, unavailable: a.schedulable ? null : (a.reason ?? 'unavailable') };
}

function sameState(a: NodeState, b: NodeState): boolean {
  return a.unavailable === b.unavailable && JSON.stringify(a.worker) === JSON.stringify(b.worker);
}

export class NodeWatch {
  private nodes = new Map<string, NodeState>();
  private listing: Map<string, NodeState> | null = null;
  private loop: WatchLoop | null = null;
  private queued = false;
  /** How many times the workers were reported (for tests and the bench). */
  reports = 0;

  constructor(
    private readonly conn: KubeConnection,
    private readonly onWorkers: WorkersListener,
    private readonly log: (m: string) => void,
  ) {}

  /** Starts watching; resolves after the first complete list was reported. */
  async start(): Promise<void> {
    this.loop = watchLoop<V1Node>(
      this.conn,
      '/api/v1/nodes',
      {},
      (page) => this.conn.core.listNode(page),
      {
        begin: () => {
          this.listing = new Map();
        },
        page: (items) => {
          for (const n of items) {
            const state = nodeState(n);
            if (state) this.listing?.set(state.worker.id, state);
          }
        },
        end: () => {
          this.nodes = this.listing ?? new Map();
          this.listing = null;
          this.report();
        },
        event: (type, node) => {
          const name = node.metadata?.name;
          if (!name) return;
          const had = this.nodes.get(name);
          if (type === 'DELETED') {
            if (had && this.nodes.delete(name)) this.queue();
            return;
          }
          const state = nodeState(node);
          if (!state || (had && sameState(had, state))) return;
          this.nodes.set(name, state);
          this.queue();
        },
      },
      this.log,
    );
    await this.loop.ready;
  }

  /** The workers now (for tests and the first sync). */
  current(): { workers: WorkerSpec[]; unavailable: Map<string, string> } {
    const unavailable = new Map<string, string>();
    const workers: WorkerSpec[] = [];
    for (const [id, s] of this.nodes) {
      workers.push(s.worker);
      if (s.unavailable !== null) unavailable.set(id, s.unavailable);
    }
    return { workers: numberSliceHosts(workers), unavailable };
  }

  /** What is kept per Node now, by name (for tests). */
  kept(): ReadonlyMap<string, NodeState> {
    return this.nodes;
  }

  /** The list and watch requests made so far. */
  get counts(): { lists: number; pages: number; watches: number } {
    return this.loop?.counts ?? { lists: 0, pages: 0, watches: 0 };
  }

  close(): void {
    this.loop?.close();
  }

  private queue(): void {
    if (this.queued) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      this.report();
    });
  }

  private report(): void {
    this.reports++;
    const { workers, unavailable } = this.current();
    this.onWorkers(workers, unavailable);
  }
}

/**
 * Watches the cluster's Nodes (list + watch, watch-loop.ts) and reports the complete set of
 * workers after every change, with the ones that take no new work and why (nodes.ts does the
 * mapping). Changes arriving together are reported once (coalesced to the next tick). The
 * receiver (the controller's WorkerFeed) turns them into joins, drains, resumes and removals.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { WorkerSpec } from '../model/types.js';
import type { KubeConnection } from './client.js';
import { nodeAvailability, nodeWorkers } from './nodes.js';
import { watchLoop, type WatchLoop } from './watch-loop.js';

export type WorkersListener = (workers: WorkerSpec[], unavailable: Map<string, string>) => void;

export class NodeWatch {
  private readonly nodes = new Map<string, V1Node>();
  private loop: WatchLoop | null = null;
  private queued = false;

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
      () => this.conn.core.listNode(),
      {
        reset: (items) => {
          this.nodes.clear();
          for (const n of items) if (n.metadata?.name) this.nodes.set(n.metadata.name, n);
          this.report();
        },
        event: (type, node) => {
          const name = node.metadata?.name;
          if (!name) return;
          if (type === 'DELETED') this.nodes.delete(name);
          else this.nodes.set(name, node);
          this.queue();
        },
      },
      this.log,
    );
    await this.loop.ready;
  }

  /** The workers now (for tests and the first sync). */
  current(): { workers: WorkerSpec[]; unavailable: Map<string, string> } {
    const nodes = [...this.nodes.values()];
    const unavailable = new Map<string, string>();
    for (const n of nodes) {
      const a = nodeAvailability(n);
      if (!a.schedulable && n.metadata?.name) unavailable.set(n.metadata.name, a.reason ?? 'unavailable');
    }
    return { workers: nodeWorkers(nodes), unavailable };
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
    const { workers, unavailable } = this.current();
    this.onWorkers(workers, unavailable);
  }
}

/**
 * An in-process stand-in for a KubeConnection (no API server): the list, watch, create, Binding
 * and delete calls the kubernetes backend makes, answered from memory, with counters of what was
 * asked (requests by kind, the most requests open at once, the page sizes asked for). Enough to
 * count the work the backend does per Node event and per Pod at fleet size.
 */
import type { KubeConnection } from '../../src/kube/client.js';
import { InFlightLimit } from '../../src/kube/in-flight.js';

type Callback = (type: string, object: unknown) => void;

export interface OpenWatch {
  path: string;
  query: Record<string, unknown>;
  send: Callback;
  /** Ends the watch the way the client does (null: a clean end). */
  end: (error: unknown) => void;
}

export interface FakeConnection {
  conn: KubeConnection;
  nodes: Map<string, unknown>;
  pods: Map<string, unknown>;
  watches: OpenWatch[];
  calls: Record<string, number>;
  /** The `limit` of each list request (undefined: the whole list at once). */
  pageLimits: Array<number | undefined>;
  /** The most create / Binding / delete requests open at once. */
  peakOpen: number;
}

function page<T>(all: T[], args: { limit?: number; _continue?: string }, version: string) {
  const from = args._continue ? Number(args._continue) : 0;
  const to = args.limit ? Math.min(all.length, from + args.limit) : all.length;
  return {
    items: all.slice(from, to),
    metadata: { resourceVersion: version, _continue: to < all.length ? String(to) : '' },
  };
}

export function fakeConnection(o: { replyMs?: number } = {}): FakeConnection {
  let open = 0;
  let version = 100;
  const fake: FakeConnection = {
    conn: null as unknown as KubeConnection,
    nodes: new Map(),
    pods: new Map(),
    watches: [],
    calls: {},
    pageLimits: [],
    peakOpen: 0,
  };
  const count = (name: string) => (fake.calls[name] = (fake.calls[name] ?? 0) + 1);
  /** A short request: counted as open until its reply comes (after replyMs, or the next turn). */
  const request = async <T>(name: string, answer: () => T): Promise<T> => {
    count(name);
    open++;
    fake.peakOpen = Math.max(fake.peakOpen, open);
    await new Promise((r) => setTimeout(r, o.replyMs ?? 0));
    open--;
    return answer();
  };
  const core = {
    listNode: async (args: { limit?: number; _continue?: string } = {}) => {
      count('listNode');
      fake.pageLimits.push(args.limit);
      return page([...fake.nodes.values()], args, String(version));
    },
    listNamespacedPod: async (args: { limit?: number; _continue?: string } = {}) => {
      count('listNamespacedPod');
      fake.pageLimits.push(args.limit);
      return page([...fake.pods.values()], args, String(version));
    },
    createNamespacedPod: (args: { body: { metadata: { name: string } } }) =>
      request('createNamespacedPod', () => {
        fake.pods.set(args.body.metadata.name, args.body);
        return args.body;
      }),
    createNamespacedPodBinding: (args: { name: string }) =>
      request('createNamespacedPodBinding', () => ({ name: args.name })),
    deleteNamespacedPod: (args: { name: string }) =>
      request('deleteNamespacedPod', () => {
        fake.pods.delete(args.name);
        return {};
      }),
  };
  const watch = {
    watch: async (path: string, query: Record<string, unknown>, send: Callback, done: (e: unknown) => void) => {
      count('watch');
      const controller = new AbortController();
      const w: OpenWatch = {
        path,
        query,
        send: (type, object) => {
          version++;
          send(type, object);
        },
        end: (error) => {
          fake.watches.splice(fake.watches.indexOf(w), 1);
          done(error);
        },
      };
      fake.watches.push(w);
      return controller;
    },
  };
  fake.conn = {
    config: null,
    core,
    watch,
    log: null,
    namespace: 'default',
    server: 'https://fake',
    limit: new InFlightLimit(),
  } as unknown as KubeConnection;
  return fake;
}

/** A Node as a kubelet reports it, with the bulk that iris does not read (managed fields, images). */
export function bulkyNode(name: string, heartbeat: string, o: { unschedulable?: boolean } = {}) {
  return {
    metadata: {
      name,
      resourceVersion: heartbeat,
      labels: { 'cloud.google.com/gke-nodepool': 'pool-a', 'kubernetes.io/hostname': name },
      managedFields: Array.from({ length: 4 }, (_, i) => ({ manager: `m${i}`, fieldsV1: { f: 'x'.repeat(400) } })),
    },
    spec: { unschedulable: o.unschedulable ?? false },
    status: {
      allocatable: { cpu: '64', memory: '256Gi', pods: '110' },
      capacity: { cpu: '64', memory: '256Gi', pods: '110' },
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: heartbeat },
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: heartbeat },
      ],
      images: Array.from({ length: 30 }, (_, i) => ({ names: [`registry.example/image-${i}:v1`], sizeBytes: 1e8 })),
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    },
  };
}

/**
 * Binds iris's Pods to the Nodes iris chose, through the Binding API
 * (`POST /api/v1/namespaces/NS/pods/NAME/binding`). Guarantees:
 * - A Pod outside a gang is bound as soon as it exists (one Binding request per Pod, sent through the
 *   connection's bound on requests in flight, in-flight.ts).
 * - A gang is bound ALL OR NONE: its Pods are held until every member (gang.size) exists, then
 *   all are bound together; if any binding fails, or a member could not be created, every
 *   member is reported failed (the runtime deletes them and reports them lost, a preemption).
 * - A member withdrawn before its gang was bound (stopped) leaves the gang; the gang then waits
 *   for a member of that slot again (a gang restart creates all of them anew).
 */
import type { KubeConnection } from './client.js';
import { messageOf } from './client.js';

export interface BindRequest {
  pod: string;
  node: string;
  gang: { id: string; size: number } | null;
  /** Called once: null when bound, else why not (the whole gang failed). */
  done: (error: string | null) => void;
}

interface GangHold {
  size: number;
  members: Map<string, BindRequest>;
  failed: string | null;
}

export class Binder {
  private readonly gangs = new Map<string, GangHold>();

  constructor(private readonly conn: KubeConnection) {}

  /** Bind now, or hold until the gang is complete. */
  submit(request: BindRequest): void {
    if (!request.gang) {
      void this.bindOne(request).then(request.done);
      return;
    }
    const hold = this.gangs.get(request.gang.id) ?? { size: request.gang.size, members: new Map(), failed: null };
    this.gangs.set(request.gang.id, hold);
    if (hold.failed) {
      request.done(hold.failed);
      return;
    }
    hold.members.set(request.pod, request);
    if (hold.members.size >= hold.size) {
      this.gangs.delete(request.gang.id);
      void this.bindGang([...hold.members.values()]);
    }
  }

  /** A member could not even be created: the members held so far fail, and so do later ones. */
  fail(gang: { id: string; size: number }, why: string): void {
    const hold = this.gangs.get(gang.id) ?? { size: gang.size, members: new Map(), failed: null };
    this.gangs.set(gang.id, hold);
    hold.failed = why;
    for (const m of hold.members.values()) m.done(why);
    hold.members.clear();
  }

  /** Withdraw a held member (its Pod is being deleted); true when it was held. */
  withdraw(gangId: string, pod: string): boolean {
    const hold = this.gangs.get(gangId);
    if (!hold) return false;
    const had = hold.members.delete(pod);
    if (hold.members.size === 0) this.gangs.delete(gangId);
    return had;
  }

  /** How many members a gang still waits for (for reasons and tests); 0 when none is held. */
  waitingFor(gangId: string): number {
    const hold = this.gangs.get(gangId);
    return hold ? hold.size - hold.members.size : 0;
  }

  private async bindOne(r: BindRequest): Promise<string | null> {
    try {
      await this.conn.limit.run(() =>
        this.conn.core.createNamespacedPodBinding({
          name: r.pod,
          namespace: this.conn.namespace,
          body: {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: r.pod, namespace: this.conn.namespace },
            target: { apiVersion: 'v1', kind: 'Node', name: r.node },
          },
        }),
      );
      return null;
    } catch (error) {
      return `binding pod ${r.pod} to node ${r.node} failed: ${messageOf(error)}`;
    }
  }

  private async bindGang(members: BindRequest[]): Promise<void> {
    const results = await Promise.all(members.map((m) => this.bindOne(m)));
    const failure = results.find((r) => r !== null) ?? null;
    const why = failure === null ? null : `gang binding failed (all ${members.length} pods deleted): ${failure}`;
    for (const m of members) m.done(why);
  }
}

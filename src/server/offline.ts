/**
 * The saved state of a stopped cluster, read-only: `openOffline(home)` opens `state.db` without
 * changing it (ClusterStore readOnly) and serves it through the very service a running cluster
 * uses (ControllerService), so `iris jobs`, `status`, `logs` and `history` show the same views
 * with the cluster stopped. Nothing runs: no attempt is held or stopping, no wait is open, and
 * every operation that needs a live controller (submit, cancel, drain, queue, wait…) throws
 * IrisError('unavailable') with the hint to start the cluster. Logs are read as saved; there is
 * nothing to follow.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { IrisError } from '../model/errors.js';
import { ClusterStore } from '../cluster/state/store.js';
import { WaitRegistry } from '../cluster/controller/waits.js';
import { ControllerService, type ControllerPort } from './controller-service.js';
import { DEFAULT_QUEUE_OPTIONS } from '../cluster/scheduler/queue/options.js';

export interface OfflineCluster {
  /** The service over the saved state; only its reading methods answer. */
  service: ControllerService;
  /** The state directory read. */
  home: string;
  close(): void;
}

function stopped(what: string): IrisError {
  return new IrisError('unavailable', `${what} needs a running cluster, and none is running`, 'start one with `iris cluster start`');
}

/** A controller that is not running: nothing is held, and asking it to act throws. */
function stoppedController(): ControllerPort {
  return {
    held: () => [],
    waits: new WaitRegistry(),
    waitingHolds: () => [],
    passes: 0,
    policy: DEFAULT_QUEUE_OPTIONS.policy,
    callerForToken: () => null,
    isolationForToken: () => null,
    applyStopOrders: () => {
      throw stopped('stopping tasks');
    },
    requestPass: () => {},
    setWorkerEnabled: () => {
      throw stopped('disabling or enabling a worker');
    },
    gone: () => Promise.reject(stopped('replacing a job')),
    estimate: () => {
      throw stopped('an estimate');
    },
    queueListing: () => {
      throw stopped('the queue');
    },
  };
}

/** The saved state in `home`, or null when there is none (no cluster ever ran there). */
export function openOffline(home: string): OfflineCluster | null {
  const file = path.join(home, 'state.db');
  if (!existsSync(file)) return null;
  const store = ClusterStore.open({ path: file, readOnly: true });
  const service = new ControllerService(store, stoppedController(), {
    clusterId: '', socketPath: '', home, version: '', startedAt: 0, quotas: new Map(),
    requestStop: () => Promise.reject(stopped('stopping the cluster')),
    defaults: { timeLimitMs: null, maxPreemptions: 0, image: null },
  });
  return { service, home, close: () => store.close() };
}

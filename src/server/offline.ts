/**
 * The saved state of a stopped cluster, read-only: `openOffline(home)` opens `state.db` without
 * changing anything in the state directory (ClusterStore readOnly: no lock, no file created, no
 * mtime changed) and serves it through the very service a running cluster uses
 * (ControllerService), so `iris jobs`, `status`, `logs` and `history` show the same views with
 * the cluster stopped. Nothing runs: no attempt is held or stopping, no wait is open, and every
 * operation that needs a live controller (submit, cancel, drain, queue, wait…) throws
 * IrisError('unavailable') with the hint to start the cluster. Logs are read as saved; there is
 * nothing to follow.
 *
 * It reads only while no controller holds the state lock (the caller checked; checked again once
 * loaded: a controller that started meanwhile may have changed the file under the reader, which
 * is then told to ask again). A damaged database says so (`<path> is damaged: …`, exit 6); a
 * missing or empty one next to the logs of earlier runs too (saved-state.ts); a state directory
 * where no cluster ever ran says that (exit 6).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { IrisError } from '../model/errors.js';
import { damagedError, missingError } from '../model/storage.js';
import { STATE_FILE, stateHolderPid } from '../api/lock-holder.js';
import { ClusterStore } from '../cluster/state/store.js';
import { WaitRegistry } from '../cluster/controller/waits.js';
import { ControllerService, type ControllerPort } from './controller-service.js';
import { DEFAULT_QUEUE_OPTIONS } from '../cluster/scheduler/queue/options.js';
import { earlierRuns } from './saved-state.js';

export interface OfflineCluster {
  /** The service over the saved state; only its reading methods answer. */
  service: ControllerService;
  /** The state directory read. */
  home: string;
  /**
   * A failed read as the user should see it: a cluster that started meanwhile (its writes may be
   * what the reader tripped on), else `error`.
   */
  explain(error: unknown): unknown;
  close(): void;
}

function stopped(what: string): IrisError {
  return new IrisError(
    'unavailable',
    `${what} needs a running cluster, and none is running`,
    'start one with `iris cluster start`',
  );
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
    exec: () => Promise.reject(stopped('iris exec')),
    estimate: () => {
      throw stopped('an estimate');
    },
    queueListing: () => {
      throw stopped('the queue');
    },
    namedQueues: () => [],
  };
}

export function noSavedState(home: string): IrisError {
  return new IrisError(
    'unavailable',
    `no iris cluster is running, and ${home} holds no saved cluster state`,
    'start one with `iris cluster start`',
  );
}

/** Not null when a controller took the state lock of `home` while its saved state was read. */
function startedMeanwhile(home: string): IrisError | null {
  const pid = stateHolderPid(home);
  if (pid === null) return null;
  return new IrisError(
    'unavailable',
    `the iris cluster in ${home} (pid ${pid}) started while its saved state was being read`,
    'run the command again: it then asks the running cluster',
  );
}

/** The saved state in `home` (see the header). */
export function openOffline(home: string): OfflineCluster {
  const file = path.join(home, STATE_FILE);
  const evidence = earlierRuns(home);
  if (!existsSync(file)) throw evidence === null ? noSavedState(home) : missingError(file, evidence);
  let store: ClusterStore;
  try {
    const ifEmpty = evidence === null ? noSavedState(home) : damagedError(file, `it is empty, but ${evidence}`);
    store = ClusterStore.open({ path: file, readOnly: true, ifEmpty });
  } catch (error) {
    throw startedMeanwhile(home) ?? error;
  }
  const started = startedMeanwhile(home);
  if (started !== null) {
    store.close();
    throw started;
  }
  const service = new ControllerService(store, stoppedController(), {
    clusterId: '',
    socketPath: '',
    home,
    version: '',
    startedAt: 0,
    configPath: null,
    quotas: new Map(),
    requestStop: () => Promise.reject(stopped('stopping the cluster')),
    defaults: { timeLimitMs: null, maxPreemptions: 0, image: null },
  });
  refuseChanges(service);
  return { service, home, explain: (error) => startedMeanwhile(home) ?? error, close: () => store.close() };
}

/**
 * Every operation that would change the saved state answers `unavailable` before it reaches the
 * store (opened read-only, where a write would fail as SQLite's "readonly database", a 500): the
 * dashboard of a stopped cluster serves this service behind the whole owner route table.
 */
function refuseChanges(service: ControllerService): void {
  const refuse = (what: string) => () => Promise.reject(stopped(what));
  const refuseNow = (what: string) => () => {
    throw stopped(what);
  };
  const changes: Partial<Record<keyof ControllerService, unknown>> = {
    submit: refuse('submitting a job'),
    submitPipeline: refuse('submitting a pipeline'),
    cancel: refuse('cancelling jobs'),
    retry: refuse('retrying a job'),
    update: refuseNow('changing the priority of a job'),
    drain: refuse('draining a worker'),
    resume: refuse('resuming a worker'),
    disable: refuse('disabling a worker'),
    enable: refuse('enabling a worker'),
    prune: refuse('pruning old runs'),
    setResults: refuseNow('setting results'),
    registerEndpoint: refuseNow('registering an endpoint'),
  };
  Object.assign(service, changes);
}

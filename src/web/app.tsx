/**
 * The page: a header (the views' links, the cluster's name, backend and version, the live badge)
 * and the view the hash names (a hash naming no view gets a note with the views' links).
 * A cluster that answers GET /v1/cluster `unavailable` is shown as stopped: the saved state,
 * read-only, without actions or live updates. A dashboard server that does not answer at all is
 * gone (its cluster stopped or restarted): a banner says to run `iris dashboard` for a new link.
 * While the page is not live it asks GET /v1/cluster again every RECHECK_MS, and at once when the
 * event stream breaks, so a server that goes away is noticed without a click.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClusterInfo } from '../api/types.js';
import { getJson } from './api.js';
import { ReadOnly } from './components.js';
import { useRoute } from './hooks.js';
import { type LiveStatus, onChange, onStatus, startLive, stopLive } from './live.js';
import { type Reach, reachOf } from './reach.js';
import { hashOf, type View } from './route.js';
import { HistoryView } from './views/history.js';
import { JobView } from './views/job.js';
import { JobsView } from './views/jobs.js';
import { LogsView } from './views/logs.js';
import { QueueView } from './views/queue.js';
import { WorkersView } from './views/workers.js';

const LINKS: [View, string][] = [
  ['jobs', 'Jobs'],
  ['queue', 'Queue'],
  ['workers', 'Workers'],
  ['history', 'History'],
];

/** `local` or `kubernetes`: a cluster whose workers carry Kubernetes nodes' attributes. */
function backendOf(info: ClusterInfo): string {
  const kube =
    info.workers.some((w) => w.left === 'node' || w.disabled?.by === 'node') ||
    info.workers.some((w) => Object.keys(w.attributes).some((k) => k.startsWith('kubernetes.io/')));
  return kube ? 'kubernetes' : 'local';
}

const RECHECK_MS = 5000;

function useCluster(): { info: ClusterInfo | null; reach: Reach } {
  const [state, setState] = useState<{ info: ClusterInfo | null; reach: Reach }>({ info: null, reach: 'live' });
  const reach = useRef<Reach>('live');
  useEffect(() => {
    let alive = true;
    const set = (info: ClusterInfo | null, next: Reach) => {
      reach.current = next;
      setState((s) => ({ info: info ?? s.info, reach: next }));
    };
    const read = () =>
      getJson<ClusterInfo>('cluster')
        .then((info) => alive && set(info, 'live'))
        .catch((error: unknown) => alive && set(null, reachOf(error)));
    read();
    const off = onChange(read);
    // The stream broke: the server may have gone with its cluster (onStatus first answers the status now).
    let subscribed = false;
    const offStatus = onStatus((s) => subscribed && s === 'off' && read());
    subscribed = true;
    const timer = setInterval(() => reach.current !== 'live' && read(), RECHECK_MS);
    return () => {
      alive = false;
      off();
      offStatus();
      clearInterval(timer);
    };
  }, []);
  return state;
}

const BADGE: Record<LiveStatus, string> = { on: 'live', off: 'reconnecting', offline: 'stopped' };

export function App() {
  const route = useRoute();
  const { info, reach } = useCluster();
  const [live, setLive] = useState<LiveStatus>('off');
  useEffect(() => onStatus(setLive), []);
  useEffect(() => (reach === 'live' ? startLive() : stopLive()), [reach]);
  const current = route.view === 'job' || route.view === 'logs' ? 'jobs' : route.view;
  const badge: LiveStatus = reach === 'stopped' ? 'offline' : reach === 'gone' ? 'off' : live;
  return (
    <ReadOnly.Provider value={reach !== 'live'}>
      <header class="top">
        <a class="brand" href={hashOf('jobs')}>
          iris
        </a>
        <nav>
          {LINKS.map(([view, label]) => (
            <a key={view} href={hashOf(view)} class={current === view ? 'active' : ''} data-nav={view}>
              {label}
            </a>
          ))}
        </nav>
        <span class="cluster" data-cluster>
          {info ? `${info.clusterId} · ${backendOf(info)} · v${info.version}` : ''}
        </span>
        <span class={`live live-${badge}`} data-live={badge}>
          {reach === 'gone' ? 'off' : BADGE[badge]}
        </span>
      </header>
      {reach === 'stopped' ? (
        <div class="banner" role="status" data-readonly>
          cluster stopped: read-only view of the saved state
        </div>
      ) : null}
      {reach === 'gone' ? (
        <div class="banner gone" role="alert" data-gone>
          {"the dashboard's server no longer answers (the cluster stopped or restarted): run "}
          <code>iris dashboard</code>
          {" for a new link (a stopped cluster's saved state is then shown read-only)"}
        </div>
      ) : null}
      <main>
        {route.view === 'jobs' ? <JobsView params={route.params} /> : null}
        {route.view === 'job' ? <JobView key={route.arg} name={route.arg} /> : null}
        {route.view === 'logs' ? <LogsView key={route.arg} target={route.arg} params={route.params} /> : null}
        {route.view === 'queue' ? <QueueView /> : null}
        {route.view === 'workers' ? <WorkersView params={route.params} /> : null}
        {route.view === 'history' ? <HistoryView params={route.params} /> : null}
        {route.view === 'unknown' ? <UnknownView path={route.arg} /> : null}
      </main>
    </ReadOnly.Provider>
  );
}

/** A hash naming no view: say so, and link the views (rather than showing one the user did not ask for). */
function UnknownView({ path }: { path: string }) {
  return (
    <div data-view="unknown">
      <h1>No such page</h1>
      <p>
        {`The dashboard has no page #/${path}. Its pages: `}
        {LINKS.map(([view, label], i) => (
          <>
            {i > 0 ? ', ' : ''}
            <a key={view} href={hashOf(view)}>
              {label}
            </a>
          </>
        ))}
        .
      </p>
    </div>
  );
}

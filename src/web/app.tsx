/**
 * The page: a header (the views' links, the cluster's name, backend and version, the live badge)
 * and the view the hash names. A cluster that answers GET /v1/cluster `unavailable` (or not at
 * all) is shown as stopped: the saved state, read-only, without actions or live updates.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ClusterInfo } from '../api/types.js';
import { ApiError, getJson } from './api.js';
import { ReadOnly } from './components.js';
import { useRoute } from './hooks.js';
import { type LiveStatus, onChange, onStatus, startLive, stopLive } from './live.js';
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

function useCluster(): { info: ClusterInfo | null; stopped: boolean } {
  const [state, setState] = useState<{ info: ClusterInfo | null; stopped: boolean }>({ info: null, stopped: false });
  useEffect(() => {
    let alive = true;
    const read = () =>
      getJson<ClusterInfo>('cluster')
        .then((info) => alive && setState({ info, stopped: false }))
        .catch((error: unknown) => {
          if (!alive) return;
          const stopped = !(error instanceof ApiError) || error.code === 'unavailable' || error.status >= 500;
          setState((s) => ({ info: s.info, stopped }));
        });
    read();
    const off = onChange(read);
    return () => {
      alive = false;
      off();
    };
  }, []);
  return state;
}

export function App() {
  const route = useRoute();
  const { info, stopped } = useCluster();
  const [live, setLive] = useState<LiveStatus>('off');
  useEffect(() => onStatus(setLive), []);
  useEffect(() => (stopped ? stopLive() : startLive()), [stopped]);
  const current = route.view === 'job' || route.view === 'logs' ? 'jobs' : route.view;
  return (
    <ReadOnly.Provider value={stopped}>
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
        <span class={`live live-${stopped ? 'offline' : live}`} data-live={stopped ? 'offline' : live}>
          {stopped ? 'stopped' : live === 'on' ? 'live' : 'reconnecting'}
        </span>
      </header>
      {stopped ? (
        <div class="banner" role="status" data-readonly>
          cluster stopped: read-only view of the saved state
        </div>
      ) : null}
      <main>
        {route.view === 'jobs' ? <JobsView params={route.params} /> : null}
        {route.view === 'job' ? <JobView name={route.arg} /> : null}
        {route.view === 'logs' ? <LogsView target={route.arg} params={route.params} /> : null}
        {route.view === 'queue' ? <QueueView /> : null}
        {route.view === 'workers' ? <WorkersView params={route.params} /> : null}
        {route.view === 'history' ? <HistoryView params={route.params} /> : null}
      </main>
    </ReadOnly.Provider>
  );
}

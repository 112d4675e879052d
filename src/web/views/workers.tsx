/**
 * `#/workers`: each worker's capacity and use (CPU, memory, GPUs or TPU chips; TPU hosts grouped
 * by slice, `tpu-name`, ordered by `tpu-worker-id`), its state (drained, disabled and why) and
 * cost per hour (GET /v1/workers); then the Gantt chart of the last hour (GET /v1/timeline) and
 * the plots of queue length and utilisation (GET /v1/metrics/series). A cluster without those two
 * routes (404: an older iris) gets a note in their place.
 */
import type { WorkerInfo } from '../../api/types.js';
import { type ApiError, getJson } from '../api.js';
import { ErrorBox, Loading, Meter, Section, State, Table } from '../components.js';
import { formatBytes, formatNumber } from '../format.js';
import { navigate, useData, useNow } from '../hooks.js';
import { hashOf } from '../route.js';
import type { TimelineResponse } from '../timeline.js';
import { workerGroups } from '../worker-groups.js';
import { plural } from '../words.js';
import { Gantt } from './gantt.js';
import { type MetricsSeries, Plots } from './plots.js';

function device(w: WorkerInfo): string {
  if (w.device.type === 'cpu' || w.device.count === 0) return 'cpu';
  const memory = w.device.memoryBytes ? ` (${formatBytes(w.device.memoryBytes)} each)` : '';
  return `${w.device.type} ${w.device.variant ?? ''}×${w.device.count}${memory}`;
}

function stateNote(w: WorkerInfo): string {
  if (w.left) return w.left === 'node' ? 'node deleted' : 'left the config';
  if (w.disabled) return `by ${w.disabled.by}${w.disabled.reason ? `: ${w.disabled.reason}` : ''}`;
  return '';
}

function WorkerTable({ workers }: { workers: WorkerInfo[] }) {
  return (
    <Table label="workers">
      <thead>
        <tr>
          <th>worker</th>
          <th>state</th>
          <th>device</th>
          <th>CPU</th>
          <th>memory</th>
          <th>accelerators</th>
          <th class="num">tasks</th>
          <th class="num">cost/h</th>
        </tr>
      </thead>
      <tbody>
        {workers.map((w) => (
          <tr key={w.id} data-worker={w.id}>
            <td>
              {w.id}
              {w.hostname ? <div class="muted small">{w.hostname}</div> : null}
            </td>
            <td>
              <State state={w.state} />
              {stateNote(w) ? <div class="muted small">{stateNote(w)}</div> : null}
            </td>
            <td>{device(w)}</td>
            <td>
              <Meter
                used={w.used.cpuMillis}
                total={w.capacity.cpuMillis}
                label={`${formatNumber(w.used.cpuMillis / 1000)}/${formatNumber(w.capacity.cpuMillis / 1000)}`}
              />
            </td>
            <td>
              <Meter
                used={w.used.memoryBytes}
                total={w.capacity.memoryBytes}
                label={`${formatBytes(w.used.memoryBytes)}/${formatBytes(w.capacity.memoryBytes)}`}
              />
            </td>
            <td>
              {w.capacity.devices > 0 ? (
                <Meter
                  used={w.used.devices}
                  total={w.capacity.devices}
                  label={`${w.used.devices}/${w.capacity.devices}`}
                />
              ) : (
                '-'
              )}
            </td>
            <td class="num" title={w.runningTasks.join('\n')}>
              {w.runningTasks.length}
            </td>
            <td class="num">{formatNumber(w.costPerHour)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** A note for a route an older cluster does not have; the error box for any other failure. */
function Missing({ error, what }: { error: ApiError | null; what: string }) {
  if (!error) return null;
  if (error.status === 404 || error.code === 'not_found')
    return <p class="muted note">{`This cluster does not keep ${what} (an older iris): upgrade it to see it here.`}</p>;
  return <ErrorBox error={error} what={what} />;
}

/** The Gantt chart's windows (GET /v1/timeline `since`). */
const WINDOWS = ['15m', '1h', '6h', '24h'];

export function WorkersView({ params }: { params: Record<string, string> }) {
  const since = WINDOWS.includes(params.since ?? '') ? params.since : '1h';
  const workers = useData((signal) => getJson<WorkerInfo[]>('workers', {}, signal), '');
  const timeline = useData((signal) => getJson<TimelineResponse>('timeline', { since }, signal), since);
  const series = useData((signal) => getJson<MetricsSeries>('metrics/series', {}, signal), '');
  const now = useNow(5000);
  const list = workers.data ?? [];
  const cost = list.filter((w) => w.state === 'READY').reduce((sum, w) => sum + w.costPerHour, 0);
  return (
    <div data-view="workers">
      <div class="bar">
        <h1>Workers</h1>
        {workers.data ? (
          <span class="muted">
            {`${plural(list.length, 'worker')} · the ready ones cost ${formatNumber(cost)} per hour`}
          </span>
        ) : null}
      </div>
      <ErrorBox error={workers.error} what="workers" />
      {!workers.data && !workers.error ? <Loading /> : null}
      {workerGroups(list).map((g) => (
        <Section key={g.title} title={g.title}>
          <WorkerTable workers={g.workers} />
        </Section>
      ))}
      <Section title={`Timeline (last ${since})`}>
        <p class="filters">
          {WINDOWS.map((w) => (
            <button
              key={w}
              type="button"
              class={w === since ? 'active' : ''}
              aria-pressed={w === since}
              onClick={() => navigate(hashOf('workers', '', { ...params, since: w }), true)}
              data-window={w}
            >
              {w}
            </button>
          ))}
        </p>
        <Missing error={timeline.error} what="a timeline" />
        {timeline.data ? <Gantt timeline={timeline.data} workers={list.map((w) => w.id)} now={now} /> : null}
      </Section>
      <Section title="Queue and utilisation">
        <Missing error={series.error} what="metrics series" />
        {series.data ? <Plots series={series.data} /> : null}
      </Section>
    </div>
  );
}

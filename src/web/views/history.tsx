/** `#/history`: the `iris history` table (GET /v1/history) with its filters, kept in the URL. */
import type { RunInfo } from '../../api/types.js';
import { parseSince } from '../../model/since.js';
import { getJson } from '../api.js';
import { ErrorBox, Loading, State, StateFilter, Table, TextFilter } from '../components.js';
import { formatAge, formatBytes, formatNumber, formatReason, formatTime } from '../format.js';
import { navigate, useData, useNow } from '../hooks.js';
import { hashOf, jobHash } from '../route.js';

/** The history query of the route's params; `since` as the API wants it (epoch ms). */
export function historyQuery(params: Record<string, string>, now: number) {
  let since: number | undefined;
  if (params.since) {
    try {
      since = parseSince(params.since, now, 'since');
    } catch {
      since = undefined;
    }
  }
  return {
    prefix: params.prefix || undefined,
    user: params.user || undefined,
    state: params.state || undefined,
    since,
    limit: params.limit || 100,
  };
}

function Filters({ params }: { params: Record<string, string> }) {
  const set = (key: string, value: string) => navigate(hashOf('history', '', { ...params, [key]: value }), true);
  const text = (name: string, placeholder: string, size: number) => (
    <TextFilter name={name} value={params[name]} placeholder={placeholder} size={size} set={set} />
  );
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      {text('prefix', '/name', 12)}
      {text('user', 'any', 8)}
      <StateFilter value={params.state} set={set} />
      {text('since', '1h', 6)}
      {text('limit', '100', 4)}
    </form>
  );
}

export function HistoryView({ params }: { params: Record<string, string> }) {
  const key = JSON.stringify(params);
  const { data, error } = useData(
    (signal) => getJson<RunInfo[]>('history', historyQuery(params, Date.now()), signal),
    key,
  );
  const now = useNow();
  return (
    <div data-view="history">
      <div class="bar">
        <h1>History</h1>
        <Filters params={params} />
      </div>
      <ErrorBox error={error} what="history" />
      {!data && !error ? <Loading /> : null}
      {data && data.length === 0 ? <p class="muted">No runs match.</p> : null}
      {data && data.length > 0 ? (
        <Table label="history">
          <thead>
            <tr>
              <th>job</th>
              <th class="num">run</th>
              <th>user</th>
              <th>state</th>
              <th class="num">exit</th>
              <th>submitted</th>
              <th class="num">ran</th>
              <th class="num">CPU-s</th>
              <th class="num">peak mem</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {data.map((r) => (
              <tr key={`${r.name}@${r.run}`} data-run={`${r.name}@${r.run}`}>
                <td>
                  <a href={jobHash(r.archived ? `${r.name}@${r.run}` : r.name)}>{r.name}</a>
                </td>
                <td class="num">{r.run}</td>
                <td>{r.user}</td>
                <td>
                  <State state={r.state} />
                </td>
                <td class="num">{r.exitCode ?? '-'}</td>
                <td>{formatTime(r.submittedAt, now)}</td>
                <td class="num">{r.startedAt ? formatAge((r.finishedAt ?? now) - r.startedAt) : '-'}</td>
                <td class="num">{formatNumber(r.cpuSeconds, 1)}</td>
                <td class="num">{formatBytes(r.peakMemoryBytes)}</td>
                <td class="reason-cell">{formatReason(r.reason, now)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </div>
  );
}

/**
 * `#/queue`: the pending jobs in the order the scheduler considers them (GET /v1/queue), each with
 * its position, reason and reserved start, and each user's running usage against their quota.
 */
import type { QueueInfo, UsageInfo, UserShareInfo } from '../../api/types.js';
import { getJson } from '../api.js';
import { ErrorBox, Loading, Section, Table } from '../components.js';
import { formatAge, formatBytes, formatNumber, formatReason, formatTime } from '../format.js';
import { useData, useNow } from '../hooks.js';
import { jobHash } from '../route.js';
import { plural } from '../words.js';

const usage = (u: UsageInfo) => `${formatNumber(u.cpu)} CPU, ${formatBytes(u.memoryBytes)}, ${u.accelerators} acc`;

function quota(q: UserShareInfo['quota']): string {
  if (!q) return 'none';
  const parts = [
    q.cpu !== null ? `${formatNumber(q.cpu)} CPU` : null,
    q.memoryBytes !== null ? formatBytes(q.memoryBytes) : null,
    q.accelerators !== null ? `${q.accelerators} acc` : null,
  ].filter(Boolean);
  return `${parts.join(', ') || 'no limits'}${q.weight !== 1 ? ` · weight ${q.weight}` : ''}${q.hard ? ' · hard' : ''}`;
}

function Users({ users }: { users: UserShareInfo[] }) {
  return (
    <Section title="Usage and quotas">
      <Table label="users">
        <thead>
          <tr>
            <th>user</th>
            <th>running</th>
            <th>quota</th>
            <th class="num">share</th>
            <th>borrowed</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.user} data-user={u.user}>
              <td>{u.user}</td>
              <td>{usage(u.running)}</td>
              <td>{quota(u.quota)}</td>
              <td class="num">{`${formatNumber(u.share * 100, 1)}%`}</td>
              <td>{u.borrowedTasks > 0 ? `${usage(u.borrowed)} (${u.borrowedTasks} tasks)` : '-'}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Section>
  );
}

export function QueueView() {
  const { data, error } = useData((signal) => getJson<QueueInfo>('queue', {}, signal), '');
  const now = useNow();
  return (
    <div data-view="queue">
      <div class="bar">
        <h1>Queue</h1>
        {data ? (
          <span class="muted">
            {`${plural(data.jobs.length, 'pending job')} · policy ${data.policy} · queue depth ${data.queueDepth}` +
              (data.policy === 'hybrid' ? ` · reservation depth ${data.reservationDepth}` : '')}
          </span>
        ) : null}
      </div>
      <ErrorBox error={error} what="queue" />
      {!data && !error ? <Loading /> : null}
      {data && data.jobs.length === 0 ? <p class="muted">Nothing is waiting.</p> : null}
      {data && data.jobs.length > 0 ? (
        <Table label="queue">
          <thead>
            <tr>
              <th class="num">#</th>
              <th>job</th>
              <th>user</th>
              <th>band</th>
              {data.queues ? <th>queue</th> : null}
              <th class="num">tasks</th>
              <th>reason</th>
              <th>reserved start</th>
              <th class="num">estimate</th>
              <th class="num">waiting</th>
            </tr>
          </thead>
          <tbody>
            {data.jobs.map((e) => (
              <tr key={e.job} data-queue-job={e.job}>
                <td class="num" data-position={e.position}>
                  {e.position}
                </td>
                <td>
                  <a href={jobHash(e.job)}>{e.job}</a>
                </td>
                <td>{e.user}</td>
                <td>{e.band ?? '-'}</td>
                {data.queues ? <td>{e.queue ?? '-'}</td> : null}
                <td class="num">{e.pendingTasks}</td>
                <td class="reason-cell" data-reason>
                  {formatReason(e.reason, now)}
                </td>
                <td>{e.reservedStart !== null ? formatTime(e.reservedStart, now) : '-'}</td>
                <td class="num">
                  {e.estimate?.durationMs != null ? `${formatAge(e.estimate.durationMs)} (${e.estimate.source})` : '-'}
                </td>
                <td class="num">{formatAge(now - e.submittedAt)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      {data?.users?.length ? <Users users={data.users} /> : null}
    </div>
  );
}

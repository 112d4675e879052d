/**
 * `#/job/<name>`: one job (GET /v1/job): its summary, pending reason and estimated start (its
 * entry of GET /v1/queue), actions, failure hint, tasks and attempts, dependencies and stages,
 * results, requeue events and children.
 */
import type { JobDetail, QueueInfo } from '../../api/types.js';
import { getJson } from '../api.js';
import { ErrorBox, Loading, State } from '../components.js';
import { formatAge, formatBytes, formatReason, formatTime } from '../format.js';
import { useData, useNow } from '../hooks.js';
import { hashOf, logsHash } from '../route.js';
import { waitingWords } from '../words.js';
import { FailureHint, JobActions } from './job-actions.js';
import { Children, Dependencies, Requeues, Results, Tasks } from './job-parts.js';

function Pending({ job, now }: { job: JobDetail; now: number }) {
  const pending = job.state === 'PENDING' || (job.tasks.byState.PENDING ?? 0) > 0;
  const { data } = useData((signal) => getJson<QueueInfo>('queue', {}, signal), job.name, pending);
  if (!pending) return null;
  const entry = data?.jobs.find((e) => e.job === job.name);
  const waiting = waitingWords(formatReason(job.reason, now));
  return (
    <div class="pending" data-pending>
      <div>
        {waiting.label ? <span class="label">{waiting.label} </span> : null}
        {waiting.text}
      </div>
      {entry ? (
        <div>
          <span class="label">queue position:</span> {entry.position}
          {' · '}
          <span class="label">estimated start:</span>{' '}
          {entry.reservedStart !== null ? formatTime(entry.reservedStart, now) : 'not reserved yet'}
        </div>
      ) : null}
    </div>
  );
}

function Facts({ job, now }: { job: JobDetail; now: number }) {
  const facts: [string, string][] = [
    ['user', job.submitter ? `${job.user} (by ${job.submitter})` : job.user],
    ['band', job.band ?? '-'],
    ['run', `${job.run}${job.archived ? ' (archived)' : ''}`],
    ['queue', job.queue ?? '-'],
    ['replicas', String(job.replicas)],
    ['resources', `${job.resources.cpu} CPU, ${formatBytes(job.resources.memoryBytes)}, ${job.resources.device}`],
    ['submitted', `${formatTime(job.submittedAt, now)} (${formatAge(now - job.submittedAt)} ago)`],
    ['started', formatTime(job.startedAt, now)],
    ['finished', formatTime(job.finishedAt, now)],
    ['command', job.command.join(' ')],
  ];
  return (
    <dl class="facts">
      {facts.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd class={k === 'command' ? 'code' : ''}>{v}</dd>
        </>
      ))}
    </dl>
  );
}

export function JobView({ name }: { name: string }) {
  const { data: job, error, reload } = useData((signal) => getJson<JobDetail>('job', { name }, signal), name);
  const now = useNow();
  return (
    <div data-view="job" data-name={name}>
      <div class="bar">
        <h1>
          <a href={hashOf('jobs')}>Jobs</a>
          {' / '}
          <span data-job={name}>
            {name} {job ? <State state={job.state} /> : null}
          </span>
        </h1>
        {job ? (
          <a class="button" href={logsHash(job.archived ? `${job.name}@${job.run}` : job.name)} data-logs-link>
            logs
          </a>
        ) : null}
      </div>
      <ErrorBox error={error} what={name} />
      {!job && !error ? <Loading /> : null}
      {job ? (
        <>
          {job.reason && job.state !== 'PENDING' ? <p class="reason">{formatReason(job.reason, now)}</p> : null}
          <JobActions job={job} reload={reload} />
          <Pending job={job} now={now} />
          <FailureHint job={job} now={now} />
          <Facts job={job} now={now} />
          <Tasks job={job} now={now} />
          <Dependencies job={job} now={now} />
          <Results job={job} />
          <Requeues job={job} now={now} />
          <Children jobs={job.children} now={now} />
        </>
      ) : null}
    </div>
  );
}

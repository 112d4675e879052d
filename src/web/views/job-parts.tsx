/**
 * Parts of the job page: its tasks with their attempts, its dependencies and pipeline stages,
 * its results, its requeue and preemption events, and its children.
 */
import type { JobDetail, JobSummary, ResultsResponse, TaskInfo } from '../../api/types.js';
import type { JobState } from '../../model/states.js';
import type { JobDependency } from '../../model/types.js';
import { ApiError, getJson } from '../api.js';
import { ErrorBox, Section, State, Table } from '../components.js';
import { formatAge, formatBytes, formatNumber, formatReason, formatTime, taskCounts } from '../format.js';
import { useData } from '../hooks.js';
import { jobHash, logsHash } from '../route.js';
import { taskUsage } from '../task-usage.js';
import { afterStatus, afterVerb } from '../words.js';

/** The dependencies whose states the job page reads (one GET /v1/job each). */
const MAX_AFTER_READS = 20;

/** A task of this run as a log target: `/a/task-0`, or `/a@3/task-0` for an archived run. */
export function runTarget(job: Pick<JobDetail, 'name' | 'run' | 'archived'>, task: string): string {
  if (!job.archived || !task.startsWith(`${job.name}/`)) return task;
  return `${job.name}@${job.run}${task.slice(job.name.length)}`;
}

function TaskRows({ task, logs, now }: { task: TaskInfo; logs: string; now: number }) {
  const usage = taskUsage(task);
  const rows = [
    <tr key={task.id} class="task" data-task={task.id}>
      <td>
        <a href={logsHash(logs)} title="logs">
          {task.id.slice(task.id.lastIndexOf('/') + 1)}
        </a>
      </td>
      <td>
        <State state={task.state} />
      </td>
      <td class="num">{task.attempt}</td>
      <td>{task.workerId ?? '-'}</td>
      <td class="num">{task.exitCode ?? '-'}</td>
      <td class="reason-cell">
        {formatReason(task.reason, now)}
        {task.borrowed ? <div class="muted">{task.borrowed}</div> : null}
      </td>
      <td class="num">{task.failures}</td>
      <td class="num">{task.preemptions}</td>
      <td class="num" title="CPU seconds over all its attempts">
        {formatNumber(usage.cpuSeconds, 1)}
      </td>
      <td class="num" title="the largest peak of its attempts">
        {formatBytes(usage.peakMemoryBytes)}
      </td>
      <td>{formatTime(task.startedAt, now)}</td>
      <td class="num">{task.startedAt ? formatAge((task.finishedAt ?? now) - task.startedAt) : '-'}</td>
    </tr>,
  ];
  for (const a of task.attempts) {
    rows.push(
      <tr key={a.attempt} class="attempt" data-attempt={`${task.id}#${a.attempt}`}>
        <td class="indent">{`attempt ${a.attempt}`}</td>
        <td>
          <State state={a.state} />
        </td>
        <td class="num">{a.attempt}</td>
        <td>{a.workerId}</td>
        <td class="num">{a.exitCode ?? '-'}</td>
        <td class="reason-cell">{formatReason(a.reason, now)}</td>
        <td />
        <td />
        <td class="num">{formatNumber(a.cpuSeconds, 1)}</td>
        <td class="num">{formatBytes(a.peakMemoryBytes)}</td>
        <td>{formatTime(a.startedAt, now)}</td>
        <td class="num">{formatAge((a.finishedAt ?? now) - a.startedAt)}</td>
      </tr>,
    );
  }
  return <>{rows}</>;
}

export function Tasks({ job, now }: { job: JobDetail; now: number }) {
  return (
    <Section title={`Tasks (${job.taskList.length})`}>
      <Table label="tasks">
        <thead>
          <tr>
            <th>task</th>
            <th>state</th>
            <th class="num">attempt</th>
            <th>worker</th>
            <th class="num">exit</th>
            <th>reason</th>
            <th class="num">failures</th>
            <th class="num">preempted</th>
            <th class="num">CPU-s</th>
            <th class="num">peak mem</th>
            <th>started</th>
            <th class="num">ran</th>
          </tr>
        </thead>
        <tbody>
          {job.taskList.map((t) => (
            <TaskRows key={t.id} task={t} logs={runTarget(job, t.id)} now={now} />
          ))}
        </tbody>
      </Table>
    </Section>
  );
}

/** The states of the jobs `after` names (null: no longer stored), read again on cluster events. */
function useAfterStates(after: readonly JobDependency[]): Map<string, JobState | null> | null {
  const names = [...new Set(after.map((d) => d.job))].slice(0, MAX_AFTER_READS);
  const { data } = useData(async (signal) => {
    const states = new Map<string, JobState | null>();
    await Promise.all(
      names.map(async (name) => {
        try {
          states.set(name, (await getJson<JobSummary>('job', { name }, signal)).state);
        } catch (e) {
          if (e instanceof ApiError && (e.status === 404 || e.code === 'not_found')) states.set(name, null);
        }
      }),
    );
    return states;
  }, names.join('\n'));
  return data;
}

/** Each dependency in words (`after /prep succeeds`) and whether it is met yet. */
function After({ after }: { after: JobDependency[] }) {
  const states = useAfterStates(after);
  return (
    <ul class="after">
      {after.map((d) => {
        const status = afterStatus(d, states ? states.get(d.job) : undefined);
        return (
          <li key={`${d.job}:${d.condition}`} data-after={d.job} data-after-outcome={status.outcome ?? ''}>
            {'runs after '}
            <a href={jobHash(d.job)}>{d.job}</a>
            {` ${afterVerb(d.condition)}`}
            {status.text ? <span class={`dep dep-${status.outcome}`}>{` · ${status.text}`}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}

export function Dependencies({ job, now }: { job: JobDetail; now: number }) {
  if (!job.after?.length && !job.cause && !job.stages?.length && !job.stage) return null;
  return (
    <Section title="Dependencies and stages">
      {job.after?.length ? <After after={job.after} /> : null}
      {job.cause ? (
        <p>
          ended by <a href={jobHash(job.cause.parent)}>{job.cause.parent}</a> ({job.cause.kind.replace(/_/g, ' ')})
        </p>
      ) : null}
      {job.stage ? (
        <p>
          {`stage ${job.stage.name}`}
          {job.stage.needs.length ? ` (needs ${job.stage.needs.join(', ')})` : ''}
          {job.parent ? (
            <>
              {' of pipeline '}
              <a href={jobHash(job.parent)}>{job.parent}</a>
            </>
          ) : null}
        </p>
      ) : null}
      {job.stages?.length ? (
        <Table label="stages">
          <thead>
            <tr>
              <th>stage</th>
              <th>job</th>
              <th>needs</th>
              <th>state</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {job.stages.map((s) => (
              <tr key={s.stage} data-stage={s.stage}>
                <td>{s.stage}</td>
                <td>
                  <a href={jobHash(s.job)}>{s.job}</a>
                </td>
                <td>{s.needs.join(', ') || '-'}</td>
                <td>
                  <State state={s.state} />
                </td>
                <td>{formatReason(s.reason, now)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </Section>
  );
}

export function Results({ job }: { job: JobDetail }) {
  const count = job.results ?? 0;
  const { data, error } = useData(
    (signal) => getJson<ResultsResponse>('results', { job: job.name, run: job.run }, signal),
    `${job.name}@${job.run} ${count}`,
    false,
  );
  if (count === 0) return null;
  return (
    <Section title={`Results (${count})`}>
      <ErrorBox error={error} what="results" />
      {data ? (
        <Table label="results">
          <thead>
            <tr>
              <th>task</th>
              <th>key</th>
              <th>value</th>
            </tr>
          </thead>
          <tbody>
            {data.results.map((r) => (
              <tr key={`${r.task} ${r.key}`}>
                <td>{r.task}</td>
                <td>{r.key}</td>
                <td class="value">{r.value}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
    </Section>
  );
}

export function Requeues({ job, now }: { job: JobDetail; now: number }) {
  const r = job.requeues;
  if (!r) return null;
  const counts = Object.entries(r.byReason)
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`)
    .join(', ');
  return (
    <Section title={`Requeue and preemption events (${r.total})`}>
      <p class="muted">{counts}</p>
      <Table label="requeues">
        <thead>
          <tr>
            <th>time</th>
            <th>reason</th>
            <th>task</th>
            <th>detail</th>
          </tr>
        </thead>
        <tbody>
          {r.recent.map((e, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: events have no id; the list is replaced whole
            <tr key={i}>
              <td>{formatTime(e.time, now)}</td>
              <td>{e.reason.replace(/_/g, ' ')}</td>
              <td>{e.task ? `${e.task}${e.attempt !== null ? ` #${e.attempt}` : ''}` : '-'}</td>
              <td>{formatReason(e.detail, now)}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Section>
  );
}

export function Children({ jobs, now }: { jobs: JobSummary[]; now: number }) {
  if (jobs.length === 0) return null;
  return (
    <Section title={`Children (${jobs.length})`}>
      <Table label="children">
        <thead>
          <tr>
            <th>job</th>
            <th>state</th>
            <th class="num">running</th>
            <th class="num">pending</th>
            <th class="num">done</th>
            <th class="num">age</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((c) => {
            const n = taskCounts(c);
            return (
              <tr key={c.name} data-job={c.name}>
                <td>
                  <a href={jobHash(c.name)}>{c.name}</a>
                </td>
                <td>
                  <State state={c.state} />
                </td>
                <td class="num">{n.running}</td>
                <td class="num">{n.pending}</td>
                <td class="num">{`${n.done}/${c.tasks.total}`}</td>
                <td class="num">{formatAge(now - c.submittedAt)}</td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </Section>
  );
}

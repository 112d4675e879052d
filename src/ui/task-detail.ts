/**
 * `iris status JOB/task-N`: one task's fields (its job and the job's state, state, reason,
 * attempt, worker, exit, failures and preemptions, times), then its attempts as `iris status JOB`
 * lists them (job-detail.ts renderAttempts).
 */
import type { TaskDetail } from '../api/types.js';
import { formatAge, formatReason, formatSpan } from './format.js';
import { indent, renderAttempts } from './job-detail.js';
import { renderFields, type Field } from './table.js';
import { PLAIN, type Style } from './colour.js';

export function renderTaskDetail(task: TaskDetail, now: number, style: Style = PLAIN): string {
  const fields: Field[] = [
    ['Task', task.id],
    ['Job', `${task.job} (${task.jobState}, task ${task.index} of ${task.replicas})`],
    ['State', task.state, (state) => style.state(state)],
  ];
  if (task.reason) {
    fields.push([task.state === 'PENDING' ? 'Pending reason' : 'Reason', formatReason(task.reason, now)]);
  }
  if (task.borrowed) fields.push(['Quota', task.borrowed]);
  fields.push(
    ['Attempt', String(task.attempt)],
    ['Worker', task.workerId ?? '-'],
    ['Exit', task.exitCode === null ? '-' : String(task.exitCode)],
    ['Failures', `${task.failures} failed attempts, ${task.preemptions} preemptions`],
  );
  if (task.startedAt !== null) fields.push(['Started', `${formatAge(task.startedAt, now)} ago`]);
  if (task.finishedAt !== null) fields.push(['Finished', `${formatAge(task.finishedAt, now)} ago`]);
  fields.push(['Duration', formatSpan(task.startedAt, task.finishedAt, now)]);
  const sections = [renderFields(fields)];
  const attempts = renderAttempts([task], now, style);
  if (attempts) sections.push('', 'Attempts:', indent(attempts));
  return sections.join('\n');
}

/**
 * The job page's actions: cancel (once the user confirms: it ends the job's whole subtree), retry
 * (with its "downstream" checkbox) and change of priority band (POST /v1/jobs/cancel,
 * /v1/jobs/retry, /v1/jobs/update, each with `x-iris-dashboard: 1`), and the failure hint of a
 * failed job: the deciding task's reason and the last 20 lines of the log of its last attempt.
 * A refusal is shown with the API's message and hint. None of this shows on a stopped cluster.
 */
import { useContext, useState } from 'preact/hooks';
import type { JobDetail, LogBatch, LogLine, TaskInfo } from '../../api/types.js';
import { BANDS } from '../../model/band.js';
import { FAILURE_STATES } from '../../model/states.js';
import { ApiError, postJson, streamJson } from '../api.js';
import { ErrorBox, ReadOnly } from '../components.js';
import { formatReason } from '../format.js';
import { useData } from '../hooks.js';
import { expandItem } from '../log-buffer.js';
import { logsHash } from '../route.js';
import { cancelQuestion } from '../words.js';
import { runTarget } from './job-parts.js';

const ENDED_OK = new Set(['SUCCEEDED']);
const isEnded = (job: JobDetail) => job.state !== 'PENDING' && job.state !== 'RUNNING';

export function JobActions({ job, reload }: { job: JobDetail; reload: () => void }) {
  const readOnly = useContext(ReadOnly);
  const [downstream, setDownstream] = useState(false);
  const [band, setBand] = useState<string>(job.band ?? 'interactive');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  if (readOnly || job.archived) return null;
  const act = async (what: string, call: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await call());
      reload();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, 'internal', `${what}: ${String(e)}`));
    } finally {
      setBusy(false);
    }
  };
  const live = !isEnded(job) || (job.liveDescendants ?? 0) > 0;
  const retryable = isEnded(job) && !ENDED_OK.has(job.state);
  return (
    <div class="actions" data-actions>
      {live ? (
        <button
          type="button"
          class="danger"
          disabled={busy}
          data-action="cancel"
          onClick={() => {
            // Cancel ends the whole subtree at once: ask first, and send nothing on `no`.
            if (!window.confirm(cancelQuestion(job.name))) return;
            act('cancel', async () => {
              const r = await postJson<{ cancelled: string[] }>('jobs/cancel', { names: [job.name] });
              return r.cancelled.length > 0 ? `cancelled ${r.cancelled.join(', ')}` : 'nothing left to cancel';
            });
          }}
        >
          cancel
        </button>
      ) : null}
      {retryable ? (
        <span class="group">
          <button
            type="button"
            disabled={busy}
            data-action="retry"
            onClick={() =>
              act('retry', async () => {
                const r = await postJson<{ retried: { name: string; run: number }[] }>('jobs/retry', {
                  name: job.name,
                  downstream,
                });
                return `retried ${r.retried.map((x) => `${x.name}@${x.run}`).join(', ')}`;
              })
            }
          >
            retry
          </button>
          <label>
            <input
              type="checkbox"
              checked={downstream}
              onChange={(e) => setDownstream((e.target as HTMLInputElement).checked)}
              data-downstream
            />{' '}
            downstream
          </label>
        </span>
      ) : null}
      {!isEnded(job) ? (
        <span class="group">
          <label>
            priority{' '}
            <select value={band} onChange={(e) => setBand((e.target as HTMLSelectElement).value)} data-band>
              {BANDS.map((b) => (
                <option key={b} value={b}>
                  {b}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            disabled={busy || band === job.band}
            data-action="priority"
            onClick={() =>
              act('priority', async () => {
                const r = await postJson<{ band: string; changed: string[] }>('jobs/update', {
                  name: job.name,
                  priority: band,
                });
                return `now ${r.band}${r.changed.length ? ` (changed: ${r.changed.join(', ')})` : ''}`;
              })
            }
          >
            change
          </button>
        </span>
      ) : null}
      {done ? (
        <span class="ok" role="status" data-action-result>
          {done}
        </span>
      ) : null}
      <ErrorBox error={error} />
    </div>
  );
}

/** The task whose failure decided the job: the first (by end) in the job's own failure state, else any failed. */
export function decidingTask(job: JobDetail): TaskInfo | null {
  const failed = job.taskList.filter(
    (t) => (FAILURE_STATES as readonly string[]).includes(t.state) || t.state === job.state,
  );
  const own = failed.filter((t) => t.state === job.state);
  const pool = own.length > 0 ? own : failed;
  if (pool.length === 0) return null;
  return [...pool].sort((a, b) => (a.finishedAt ?? Infinity) - (b.finishedAt ?? Infinity))[0];
}

const FAILED_JOB = new Set([...FAILURE_STATES, 'WORKER_FAILED', 'UNSCHEDULABLE']);

export function FailureHint({ job, now }: { job: JobDetail; now: number }) {
  const task = FAILED_JOB.has(job.state) ? decidingTask(job) : null;
  const target = task ? runTarget(job, task.id) : '';
  const { data, error } = useData(
    async (signal) => {
      const lines: LogLine[] = [];
      if (!target) return lines;
      const query = { target, tail: 20, attempt: task?.attempt };
      for await (const item of streamJson<LogBatch | LogLine>('logs', query, signal)) {
        lines.push(...expandItem(item));
      }
      return lines.slice(-20);
    },
    `${target}#${task?.attempt}`,
    false,
  );
  if (!FAILED_JOB.has(job.state)) return null;
  return (
    <section class="failure" data-failure-hint>
      <h2>Why it failed</h2>
      <p>
        {task ? (
          <>
            <a href={logsHash(target)}>{task.id}</a> {task.state}: {formatReason(task.reason, now) || 'no reason'}
          </>
        ) : (
          formatReason(job.reason, now) || 'no reason recorded'
        )}
      </p>
      <ErrorBox error={error} what="log" />
      {data && data.length > 0 ? (
        <pre class="tail">{data.map((l) => l.text).join('\n')}</pre>
      ) : task && data ? (
        <p class="muted">its log is empty</p>
      ) : null}
    </section>
  );
}

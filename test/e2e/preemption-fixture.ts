/**
 * What the preemption e2e tests share (preemption*.test.ts): a task that holds on a gate and
 * reports its SIGTERM with the notice file's content, and the reads of what a user sees.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AttemptInfo, JobDetail, QueueInfo } from '../../src/api/types.js';
import { waitUntil, type E2ECluster } from './harness.js';

/**
 * A task that says when it starts, then holds on its gate ($1). On SIGTERM it prints the notice
 * file and exits 143, or, with $2 = ignore, prints it and goes on holding (then SIGKILL ends it).
 * Written once per cluster: sh reads a script as it runs, so rewriting it under a running task
 * could end that task early.
 */
export function holder(c: E2ECluster): string {
  const file = path.join(c.cwd, 'hold.sh');
  if (existsSync(file)) return file;
  return c.script(
    'hold.sh',
    [
      'notice() { echo "TERM: $(cat "$IRIS_NOTICE_FILE" 2>/dev/null || echo no-notice)"; }',
      `if [ "$2" = ignore ]; then trap notice TERM; else trap 'notice; exit 143' TERM; fi`,
      'echo "started attempt $IRIS_ATTEMPT"',
      'while [ ! -f "$1" ]; do sleep 0.05; done',
    ].join('\n'),
  );
}

/** A time as `--json` prints it (an ISO string) or the API gives it (epoch ms), in epoch ms. */
export const ms = (t: unknown): number => (typeof t === 'number' ? t : Date.parse(String(t)));

let gates = 0;

/** Submit a job holding on a fresh gate; returns its name and the gate's opener. */
export async function hold(c: E2ECluster, name: string, flags: string[], ignoreTerm = false) {
  const gate = c.gate(`${name}-${++gates}`);
  const job = await c.submit(['--name', name, ...flags], ['sh', holder(c), gate.path, ignoreTerm ? 'ignore' : '']);
  return { job, open: gate.open };
}

export const status = (c: E2ECluster, job: string) => c.json<JobDetail>(['status', job]);
export const attempts = async (c: E2ECluster, job: string, index = 0): Promise<AttemptInfo[]> =>
  (await status(c, job)).taskList.find((t) => t.index === index)!.attempts;

/** Await the job's task `index` running its attempt `attempt` (numbered from 0). */
export function running(c: E2ECluster, job: string, attempt = 0, index = 0) {
  return c.waitForTask(job, index, (t) => t.state === 'RUNNING' && t.attempt === attempt, `attempt ${attempt} running`);
}

/** The job's pending reason as `iris queue --json` shows it, once the scheduler gave one (that `ok` accepts). */
export async function queueReason(c: E2ECluster, job: string, ok: (reason: string) => boolean = () => true) {
  const entry = await waitUntil(
    `a pending reason for ${job} in iris queue`,
    async () => (await c.json<QueueInfo>(['queue'])).jobs,
    (pending) => pending.some((p) => p.job === job && p.reason !== null && ok(p.reason)),
    { client: c.client },
  );
  return entry.find((p) => p.job === job)!.reason!;
}

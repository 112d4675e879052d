import { Flags } from '../oclif.js';
import type { WaitResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { jobList, jobListArgs } from '../ui/command-flags.js';
import { EXIT } from '../model/errors.js';
import { parseDuration } from '../model/duration.js';
import { isFinalJobState } from '../model/states.js';
import { escapeControl, formatReason } from '../ui/format.js';
import { liveBelowText } from '../ui/jobs-tree.js';

export default class Wait extends BaseCommand {
  static override summary = 'Wait until jobs and their subtrees end; exit 0 if they all succeeded.';
  static override description =
    'Blocks until every named job and all of its descendants are in a final state (with --any: until one of them ' +
    'is); a job that succeeded may leave descendants running, and they are waited for (printed as ' +
    '`/NAME SUCCEEDED (1 job below it still running or pending)` when --timeout passes first). ' +
    `Exit codes (by the named jobs' own states): 0 when every job that ended succeeded, ${EXIT.jobFailed} when one ` +
    `ended otherwise (FAILED, KILLED, ` +
    `...), ` +
    `${EXIT.timeout} when --timeout passed first, ${EXIT.notFound} for an unknown job. ` +
    "Inside a task, waiting on jobs of its own subtree releases the task's CPU to the scheduler until the wait " +
    'returns. ' +
    'With --json the jobs are printed as `iris status --json` shows them, under `{ "done", "jobs" }`.';

  static override examples = [
    '<%= config.bin %> wait train',
    '<%= config.bin %> wait sweep-1 sweep-2 --any',
    '<%= config.bin %> wait train --timeout 30s --json',
  ];

  static override strict = false;
  static override usage = '<%= command.id %> JOB [JOB…] [--any] [--timeout DURATION]';
  static override args = jobListArgs('Job name(s) to wait for, each with its subtree.');

  static override flags = {
    any: Flags.boolean({ description: 'Return as soon as one of the jobs (with its subtree) has ended.' }),
    timeout: Flags.string({ description: `Give up after this long (45, 90s, 10m, 1h30m) and exit ${EXIT.timeout}.` }),
  };

  async run(): Promise<WaitResponse> {
    const { args, argv, flags } = await this.parse(Wait);
    const jobs = jobList(args, argv);
    // Checked here so a bad duration is a usage error before anything is asked.
    if (flags.timeout !== undefined) parseDuration(flags.timeout, { what: 'timeout' });
    const abort = new AbortController();
    const dispose = this.onInterrupt(() => abort.abort(new Error('interrupted')));
    let answer: WaitResponse;
    try {
      answer = await this.client().waitJobs(
        { jobs, any: flags.any, ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}) },
        abort.signal,
      );
    } catch (error) {
      if (abort.signal.aborted) return this.exit(130);
      throw error;
    } finally {
      dispose();
    }
    if (!this.jsonEnabled()) {
      const style = this.style();
      const now = Date.now();
      for (const job of answer.jobs) {
        const shown = job.reason && job.state !== 'SUCCEEDED' ? job.reason : null;
        const reason = shown ? `: ${escapeControl(formatReason(shown, now))}` : '';
        const below = liveBelowText(job);
        this.log(`${job.name} ${style.state(job.state)}${reason}${below ? ` (${below})` : ''}`);
      }
    }
    if (!answer.done) {
      // A job that ended with jobs below it still live (a SUCCEEDED parent) is not done as a tree: say so.
      const why = answer.jobs
        .filter((job) => liveBelowText(job) !== null)
        .map((job) => `${job.name} itself ${job.state}, ${liveBelowText(job)}`);
      const tail = why.length > 0 ? ` (${why.join('; ')})` : '';
      return this.failWith(
        answer,
        `timed out after ${flags.timeout} waiting for ${jobs.join(', ')}${tail}`,
        EXIT.timeout,
      );
    }
    const ended = answer.jobs.filter((job) => isFinalJobState(job.state));
    // The lines above (or the JSON) already say which job did not succeed: the exit code is all that is added.
    if (ended.some((job) => job.state !== 'SUCCEEDED')) return this.failWith(answer, null, EXIT.jobFailed);
    return answer;
  }

  /**
   * Print the jobs (--json) and `message`, what the jobs' lines do not say (a timeout), on stderr; then exit
   * with `code`. The result itself is printed once, on stdout.
   */
  private failWith(answer: WaitResponse, message: string | null, code: number): never {
    if (this.jsonEnabled()) this.logJson(answer);
    if (message !== null) process.stderr.write(`${message}\n`);
    return this.exit(code);
  }
}

import type { JobDetail, LogLine } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { EXIT } from '../model/errors.js';
import { formatLogLine } from '../ui/logs.js';
import { buildSubmitRequest, commandFromArgv, submitFlags, type SubmitFlagValues } from '../ui/submit-flags.js';

export default class Run extends BaseCommand {
  static override summary = 'Submit a job, stream its logs, and exit 0 if it succeeded, 1 otherwise.';
  static override description =
    'Takes the same flags as `submit`. Log lines of all tasks (and child jobs) are prefixed with time, task and attempt; ' +
    "a task's stdout goes to stdout and its stderr to stderr. Ctrl-C cancels the job (and its subtree) and exits 130. " +
    'With --json the final job (as `iris status --json` shows it) is printed and log lines go to stderr.';

  static override examples = [
    '<%= config.bin %> run -- echo hello',
    '<%= config.bin %> run --replicas 2 --cpu 0.5 -- sh -c \'echo task $IRIS_TASK_INDEX of $IRIS_NUM_TASKS\'',
    '<%= config.bin %> run --name nightly --max-retries 3 --time-limit 2h -- ./nightly.sh',
  ];

  static override strict = false;
  static override usage = '<%= command.id %> [FLAGS] -- COMMAND [ARGS…]';
  static override flags = submitFlags;

  async run(): Promise<JobDetail> {
    const { flags, argv } = await this.parse(Run);
    const command = commandFromArgv(this.argv, argv as string[]);
    const request = buildSubmitRequest(flags as SubmitFlagValues, command, { cwd: process.cwd() });
    const client = await this.clusterClient();
    const { name } = await client.submit(request);
    this.logToStderr(`submitted ${name}`);

    const abort = new AbortController();
    let cancelling: Promise<unknown> | null = null;
    const dispose = this.onInterrupt(() => {
      cancelling = client.cancel([name]).catch(() => undefined);
      abort.abort();
    });
    try {
      let job: JobDetail | null = null;
      try {
        for await (const line of client.logs({ target: name, follow: true }, abort.signal)) this.writeLine(line, name);
        // The log stream ends when the job and its descendants end; wait for the final state itself.
        if (!abort.signal.aborted) job = await client.wait(name, abort.signal);
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
      if (cancelling || job === null) {
        await cancelling;
        process.stderr.write(`cancelled ${name}\n`);
        return this.exit(130);
      }
      if (job.state !== 'SUCCEEDED') {
        if (this.jsonEnabled()) this.logJson(job);
        process.stderr.write(`job ${name} ${job.state}${job.reason ? `: ${job.reason}` : ''}\n`);
        return this.exit(EXIT.jobFailed);
      }
      return job;
    } finally {
      dispose();
    }
  }

  private writeLine(line: LogLine, target: string): void {
    const text = formatLogLine(line, target) + '\n';
    if (line.stream === 'stderr' || this.jsonEnabled()) process.stderr.write(text);
    else process.stdout.write(text);
  }
}

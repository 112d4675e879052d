/**
 * `iris run`: submit, follow, exit with the job's outcome (docs/cli.md, "iris run").
 * Outside a task it streams the logs of the job and its descendants. Inside a task (IRIS_TASK_TOKEN
 * or IRIS_TASK_ID set) it does not: the child's lines are already in the child's own log, and
 * `iris logs ROOT` shows each line once; it prints one line on stderr when the child ends
 * (`iris: /demo/eval SUCCEEDED`). `--stream` / `--no-stream` choose either way explicitly.
 * Exit codes are the same in both modes: 0 SUCCEEDED, 1 any other final state, 130 interrupted.
 * It returns when the job and every job below it have ended (the server's wait, server/wait.ts): a job
 * that succeeded leaves the children it submitted running, and `iris run` waits for them; the exit
 * code is the job's own state; when a job below one that SUCCEEDED did not, one line says so
 * (`iris: /pe/bg FAILED (exit 5); /pe itself SUCCEEDED`). Ctrl-C cancels the job and what is left of its subtree.
 */
import { Flags } from '../oclif.js';
import { inTask } from '../client/task-token.js';
import type { JobDetail, LogBatch } from '../api/types.js';
import type { IrisClient } from '../client/types.js';
import type { ConnectedClient } from '../client/connect.js';
import { BaseCommand } from '../base-command.js';
import { EXIT } from '../model/errors.js';
import { escapeControl, formatReason } from '../ui/format.js';
import { formatBelowOutcome, formatJobOutcome } from '../ui/job-outcome.js';
import { JOB_STATES, isFinalJobState } from '../model/states.js';
import { formatLogBatch, LogOutput } from '../ui/logs.js';
import * as submit from '../ui/submit-flags.js';

export default class Run extends BaseCommand {
  static override summary = 'Submit a job, stream its logs, and exit 0 if it succeeded, 1 otherwise.';
  static override description =
    'Takes the same flags as `submit`. Log lines of all tasks (and child jobs) are prefixed with time, task and ' +
    'attempt; ' +
    "a task's stdout goes to stdout and its stderr to stderr. Ctrl-C cancels the job (and its subtree) and exits " +
    '130. ' +
    'With --json the final job (as `iris status --json` shows it) is printed and log lines go to stderr.\n\n' +
    'It returns when the job and every job below it have ended: a job that succeeded leaves the jobs it ' +
    'submitted running (as `sbatch` inside a Slurm job), and `iris run` follows them until they end; the exit ' +
    "code is the job's own state (a job below it that did not succeed gets one line on stderr: `iris: /pe/bg " +
    'FAILED (exit 5); /pe itself SUCCEEDED`). A job that fails, is killed or preempted for good kills its ' +
    'children.\n\n' +
    'Inside a task (IRIS_TASK_TOKEN or IRIS_TASK_TOKEN_FILE is set) the logs are not streamed by default, so `iris ' +
    'logs ROOT` shows every line once: ' +
    'instead one line is printed on stderr when the job ends, e.g. `iris: /demo/eval SUCCEEDED` or `iris: ' +
    '/demo/eval FAILED (exit 3)`. ' +
    '--stream streams them anyway; --no-stream prints only that line anywhere.';

  static override examples = [
    '<%= config.bin %> run -- echo hello',
    '<%= config.bin %> run --image python:3.12 -- python train.py    # runs in the current directory, mounted',
    "<%= config.bin %> run --replicas 2 --cpu 0.5 -- sh -c 'echo task $IRIS_TASK_INDEX of $IRIS_NUM_TASKS'",
    '<%= config.bin %> run --name nightly --max-retries 3 --time-limit 2h -- ./nightly.sh',
    '<%= config.bin %> run --name eval -- python eval.py    # inside a task: prints "iris: /JOB/eval SUCCEEDED" ' +
      'when it ends',
    '<%= config.bin %> run --gpu 1 --gpu-memory 40GiB --category inference --uses llama-3-8b -- python serve.py',
    '<%= config.bin %> run -f pipeline.yaml',
  ];

  static override strict = false;
  static override usage = submit.submitUsage('[--name NAME]');
  static override flags = {
    ...submit.submitFlags,
    file: submit.pipelineFileFlag('Run the pipeline in this YAML file (docs/pipelines.md) and follow it like one job.'),
    stream: Flags.boolean({
      summary:
        "Stream the job's log lines (default: on, except inside a task, where one line per ended job is printed " +
        'instead).',
      allowNo: true,
    }),
  };

  async run(): Promise<JobDetail> {
    const { flags, argv } = await this.parse(Run);
    const stream = flags.stream ?? !this.insideTask();
    const { name, run, client } = await this.submitOne(flags, argv as string[]);
    this.logToStderr(`submitted ${name} (run ${run})`);

    const abort = new AbortController();
    const output = new LogOutput(() => undefined);
    let cancelling: Promise<unknown> | null = null;
    const dispose = this.onInterrupt(() => {
      cancelling = client.cancel([name]).catch(() => undefined);
      abort.abort();
    });
    try {
      let job: JobDetail | null = null;
      try {
        if (stream) {
          for await (const batch of client.logBatches({ target: name, follow: true }, abort.signal))
            await this.writeBatch(output, batch, name);
        }
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
      if (!stream) process.stderr.write(`${formatJobOutcome(job)}\n`);
      if (job.state === 'SUCCEEDED' && job.children.length > 0) await this.reportBelow(client, job);
      if (job.state !== 'SUCCEEDED') {
        if (this.jsonEnabled()) this.logJson(job);
        if (stream) {
          const why = job.reason ? `: ${escapeControl(formatReason(job.reason, Date.now()))}` : '';
          process.stderr.write(`job ${name} ${job.state}${why}\n`);
        }
        return this.exit(EXIT.jobFailed);
      }
      return job;
    } finally {
      dispose();
      output.dispose();
    }
  }

  /**
   * Submits the job, or with -f the pipeline (its root job is then followed), to the cluster it
   * returns: the running one, else one started for a request it would take (BaseCommand.clusterClient).
   */
  private async submitOne(
    flags: Record<string, unknown>,
    argv: string[],
  ): Promise<{ name: string; run: number | null; client: ConnectedClient }> {
    if (typeof flags.file === 'string') {
      const file = flags.file;
      const pipeline = await submit.pipelineFromCommandLine(file, flags, argv, process.cwd());
      return submit.withPipelineFile(file, async () => {
        const client = await this.clusterClient({ pipeline });
        return { ...(await client.submitPipeline(pipeline)), client };
      });
    }
    const request = submit.requestFromCommandLine(flags, this.argv, argv, { cwd: process.cwd(), env: this.env });
    const client = await submit.withFlagNames(() => this.clusterClient({ job: request }), request);
    return { ...(await submit.withFlagNames(() => client.submit(request), request)), client };
  }

  /**
   * One line on stderr when a job below `job` (which SUCCEEDED) ended otherwise, as a child it left
   * running may (`iris: /pe/bg FAILED (exit 5); /pe itself SUCCEEDED`); the exit code stays the job's own.
   */
  private async reportBelow(client: IrisClient, job: JobDetail): Promise<void> {
    const states = JOB_STATES.filter((state) => isFinalJobState(state) && state !== 'SUCCEEDED');
    const below = (await client.jobs({ prefix: job.name, state: states })).filter((j) => j.name !== job.name);
    if (below.length === 0) return;
    const first = await client.job(below[0]!.name);
    process.stderr.write(`${formatBelowOutcome(job, first, below.length - 1)}\n`);
  }

  /** A task's environment: iris sets both for every task it launches. */
  private insideTask(): boolean {
    return inTask(this.env) || Boolean(this.env.IRIS_TASK_ID);
  }

  private writeBatch(output: LogOutput, batch: LogBatch, target: string): Promise<void> | undefined {
    return output.write(
      batch.stream === 'stderr' || this.jsonEnabled() ? 'stderr' : 'stdout',
      formatLogBatch(batch, target),
    );
  }
}

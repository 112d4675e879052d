import { Args, Flags } from '../oclif.js';
import type { LogQuery } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { parseJobRef, taskName } from '../model/names.js';
import { parseSince } from '../model/since.js';
import { IrisError } from '../model/errors.js';
import { formatLogBatch, formatLogBatchJson } from '../ui/logs.js';

/**
 * The target as typed, checked before anything is asked (an error names what the user typed, with
 * the forms `iris logs` takes); its lines are labelled relative to the job or task it names, without
 * its `@RUN`.
 */
function logTarget(typed: string): { label: string } {
  try {
    const ref = parseJobRef(typed);
    return { label: ref.task === null ? ref.job : taskName(ref.job, ref.task) };
  } catch (error) {
    if (!(error instanceof IrisError)) throw error;
    throw new IrisError(
      error.code,
      error.message,
      'give a job (train, train/eval), a task (train/task-0) or a run of either (train@3, train@3/task-0); ' +
        'list the runs of a name with `iris history NAME`',
    );
  }
}

export default class Logs extends BaseCommand {
  static override summary = 'Show the logs of a job (all its tasks and descendants) or of one task.';
  static override description =
    'Each line is prefixed with its local time, task and attempt: `12:00:01.234 task-0[0] text` (tasks of child ' +
    'jobs as `eval/task-0[0]`); ' +
    'with --timestamps=full the prefix starts with the date too: `2025-01-02 12:00:01.234 task-0[0] text`. ' +
    "A task's stdout lines go to stdout and its stderr lines to stderr. With --json each line is one JSON object " +
    '(NDJSON) on stdout. ' +
    'When the reader of the output goes away (`iris logs JOB | head`), the command stops reading and exits 0.';

  static override examples = [
    '<%= config.bin %> logs train',
    '<%= config.bin %> logs train/task-0 --attempt 1',
    '<%= config.bin %> logs train -f',
    '<%= config.bin %> logs train --tail 50 --since 10m',
    '<%= config.bin %> logs train --timestamps=full',
    '<%= config.bin %> logs train --json | jq .text',
    '<%= config.bin %> logs train@1',
  ];

  static override args = {
    target: Args.string({
      description:
        'A job (train, train/eval) or a task (train/task-0); NAME@RUN (train@3, train@3/task-0) for an older run.',
      required: true,
    }),
  };

  static override flags = {
    follow: Flags.boolean({ char: 'f', summary: 'Keep streaming until the job and its descendants end.' }),
    tail: Flags.integer({ char: 'n', summary: 'Only the last N lines before following.', min: 0 }),
    since: Flags.string({ summary: 'Only lines since a duration ago (10m, 1h) or an ISO time.' }),
    attempt: Flags.integer({ summary: 'Only this attempt (0, 1, …).', min: 0 }),
    timestamps: Flags.option({
      options: ['time', 'full'] as const,
      default: 'time' as const,
      summary: "The time in each line's prefix: time (HH:MM:SS.mmm) or full (with the date, YYYY-MM-DD HH:MM:SS.mmm).",
    })(),
    run: Flags.integer({
      summary: 'Logs of this run of the job (a run id from `iris history`), like NAME@RUN.',
      min: 1,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Logs);
    const given = args.target.startsWith('/') ? args.target : '/' + args.target;
    const target = logTarget(args.target).label;
    const query: LogQuery = { target: given, follow: flags.follow };
    if (flags.run !== undefined) query.run = flags.run;
    if (flags.tail !== undefined) query.tail = flags.tail;
    if (flags.since !== undefined) query.since = parseSince(flags.since, this.now(), '--since');
    if (flags.attempt !== undefined) query.attempt = flags.attempt;
    const client = await this.readClient();
    const json = this.jsonEnabled();
    const prefix = { date: flags.timestamps === 'full' };
    // A reader that goes away (`iris logs JOB | head`) ends the command quietly, and the request with it.
    await this.printStream(async (output, signal) => {
      for await (const batch of client.logBatches(query, signal)) {
        const text = json ? formatLogBatchJson(batch) : formatLogBatch(batch, target, prefix);
        await output.write(json ? 'stdout' : batch.stream, text);
      }
    });
  }
}

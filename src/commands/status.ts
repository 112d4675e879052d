import { Args, Flags } from '../oclif.js';
import type { JobDetail, TaskDetail } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { parseTaskName } from '../model/names.js';
import { renderJobDetail } from '../ui/job-detail.js';
import { renderTaskDetail } from '../ui/task-detail.js';

export default class Status extends BaseCommand {
  static override summary =
    'Show one job (tasks, attempts, exit codes, durations, workers, pending reason, children) or one task of it.';
  static override description =
    'Shows the latest run of the name; NAME@RUN (or --run RUN) shows an older run kept in the archive (`iris ' +
    'history NAME` lists them). ' +
    'JOB/task-N shows that one task of the latest run: its state, reason, worker, exit code, times and attempts. An ' +
    'unknown task index is exit 3, with how many tasks the job has.';

  static override examples = [
    '<%= config.bin %> status train',
    '<%= config.bin %> status /train/eval --json',
    '<%= config.bin %> status train@1',
    '<%= config.bin %> status train/task-0',
  ];

  static override args = {
    job: Args.string({
      description:
        'Job name (leading slash optional), e.g. train or train/eval; NAME@RUN for one run; or a task of it, ' +
        'train/task-3.',
      required: true,
    }),
  };

  static override flags = {
    run: Flags.integer({ summary: 'Show this run of the job (a run id from `iris history`), like NAME@RUN.', min: 1 }),
  };

  async run(): Promise<JobDetail | TaskDetail> {
    const { args, flags } = await this.parse(Status);
    const client = await this.readClient();
    if (flags.run === undefined && !args.job.includes('@') && parseTaskName(args.job)) {
      const task = await client.task(args.job);
      this.log(renderTaskDetail(task, this.now(), this.style()));
      return task;
    }
    const job = await client.job(args.job, flags.run);
    this.log(renderJobDetail(job, this.now(), this.style()));
    return job;
  }
}

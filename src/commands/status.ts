import { Args } from '@oclif/core';
import type { JobDetail, TaskDetail } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { parseTaskName } from '../model/names.js';
import { renderJobDetail } from '../ui/job-detail.js';
import { renderTaskDetail } from '../ui/task-detail.js';

export default class Status extends BaseCommand {
  static override summary = 'Show one job (tasks, attempts, exit codes, durations, workers, pending reason, children) or one task of it.';
  static override description =
    'JOB/task-N shows that one task: its state, reason, worker, exit code, times and attempts. An unknown task index is exit 3, with how many tasks the job has.';
  static override examples = ['<%= config.bin %> status train', '<%= config.bin %> status /train/eval --json', '<%= config.bin %> status train/task-0'];

  static override args = {
    job: Args.string({ description: 'Job name (leading slash optional), e.g. train or train/eval; or a task of it, train/task-3.', required: true }),
  };

  async run(): Promise<JobDetail | TaskDetail> {
    const { args } = await this.parse(Status);
    if (parseTaskName(args.job)) {
      const task = await this.client().task(args.job);
      this.log(renderTaskDetail(task, this.now()));
      return task;
    }
    const job = await this.client().job(args.job);
    this.log(renderJobDetail(job, this.now()));
    return job;
  }
}

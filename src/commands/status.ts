import { Args } from '@oclif/core';
import type { JobDetail } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { renderJobDetail } from '../ui/job-detail.js';

export default class Status extends BaseCommand {
  static override summary = 'Show one job: tasks, attempts, exit codes, durations, workers, pending reason and children.';
  static override examples = ['<%= config.bin %> status train', '<%= config.bin %> status /train/eval --json'];

  static override args = {
    job: Args.string({ description: 'Job name (leading slash optional), e.g. train or train/eval.', required: true }),
  };

  async run(): Promise<JobDetail> {
    const { args } = await this.parse(Status);
    const job = await (await this.readClient()).job(args.job);
    this.log(renderJobDetail(job, this.now(), this.style()));
    return job;
  }
}

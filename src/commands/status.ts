import { Args, Flags } from '@oclif/core';
import type { JobDetail } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { renderJobDetail } from '../ui/job-detail.js';

export default class Status extends BaseCommand {
  static override summary = 'Show one job: tasks, attempts, exit codes, durations, workers, pending reason and children.';
  static override description =
    'Shows the latest run of the name; NAME@RUN (or --run RUN) shows an older run kept in the archive (`iris history NAME` lists them).';

  static override examples = ['<%= config.bin %> status train', '<%= config.bin %> status /train/eval --json', '<%= config.bin %> status train@1'];

  static override args = {
    job: Args.string({ description: 'Job name (leading slash optional), e.g. train or train/eval; NAME@RUN for one run.', required: true }),
  };

  static override flags = {
    run: Flags.integer({ summary: 'Show this run of the job (a run id from `iris history`), like NAME@RUN.', min: 1 }),
  };

  async run(): Promise<JobDetail> {
    const { args, flags } = await this.parse(Status);
    const job = await (await this.readClient()).job(args.job, flags.run);
    this.log(renderJobDetail(job, this.now(), this.style()));
    return job;
  }
}

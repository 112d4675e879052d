import { Args, Flags } from '../oclif.js';
import type { RetryResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';

export default class Retry extends BaseCommand {
  static override summary = 'Run an ended job again; with --downstream, also the jobs its failure cascaded to.';
  static override description =
    'Starts a new run of JOB with the same spec (the old run is kept in the archive, see `iris history`). ' +
    'With --downstream, the jobs that failed with "dependency … failed" because of it (and theirs, down the chain) ' +
    'get new runs too, ' +
    'each waiting on its dependency again (afterok chains are re-armed without resubmitting them). ' +
    'A job that has not ended, or that succeeded, is refused (exit 4); an unknown job is exit 3.';

  static override examples = ['<%= config.bin %> retry prep', '<%= config.bin %> retry prep --downstream'];

  static override args = {
    job: Args.string({ description: 'The ended job to run again.', required: true }),
  };

  static override flags = {
    downstream: Flags.boolean({
      summary: 'Also run again the jobs its failure cascaded to, each waiting on it again.',
      default: false,
    }),
  };

  async run(): Promise<RetryResponse> {
    const { args, flags } = await this.parse(Retry);
    const result = await this.client().retry(args.job, flags.downstream);
    for (const { name, run } of result.retried) this.log(`retrying ${name} (run ${run})`);
    return result;
  }
}

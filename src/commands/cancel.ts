import { Args } from '@oclif/core';
import { BaseCommand } from '../base-command.js';

export default class Cancel extends BaseCommand {
  static override summary = 'Cancel jobs and their whole subtrees.';
  static override description =
    'Pending and running jobs (and their pending or running descendants) become KILLED; descendants that already finished keep their state.';

  static override examples = ['<%= config.bin %> cancel train', '<%= config.bin %> cancel train/eval sweep-1 sweep-2'];

  static override strict = false;
  static override usage = '<%= command.id %> JOB [JOB…]';
  static override args = {
    job: Args.string({ description: 'Job name(s) to cancel.', required: true }),
  };

  async run(): Promise<{ cancelled: string[] }> {
    const { args, argv } = await this.parse(Cancel);
    // oclif puts the first name in args.job and the rest in argv (strict: false).
    const names = argv.length > 0 && argv[0] === args.job ? (argv as string[]) : [args.job, ...(argv as string[])];
    const result = await this.client().cancel(names);
    if (result.cancelled.length === 0) this.log('nothing to cancel: the jobs had already finished');
    for (const name of result.cancelled) this.log(`cancelled ${name}`);
    return result;
  }
}

import { Args, Flags } from '../oclif.js';
import type { UpdateResponse } from '../api/types.js';
import { BANDS, type Band } from '../model/band.js';
import { BaseCommand } from '../base-command.js';

export default class Update extends BaseCommand {
  static override summary = "Change a pending or running job's priority band.";
  static override description =
    "Moves JOB to another band (docs/priorities.md), by the rules of a submission: not above its parent's band, " +
    'and production only for the owner or a user the config grants it (both refused with exit 4). Jobs below it ' +
    'in a higher band come down with it. The queue takes the new order at the next pass; running tasks keep ' +
    'running, but in a lower band they may now be preempted. A job that has ended is refused (exit 4); an ' +
    'unknown job is exit 3.';

  static override examples = [
    '<%= config.bin %> update sweep --priority batch',
    '<%= config.bin %> update eval --priority production',
  ];

  static override args = {
    job: Args.string({ description: 'The job to change (pending or running).', required: true }),
  };

  static override flags = {
    priority: Flags.string({
      summary: 'The new band: production, interactive or batch.',
      options: [...BANDS],
      required: true,
    }),
  };

  async run(): Promise<UpdateResponse> {
    const { args, flags } = await this.parse(Update);
    const result = await this.client().update(args.job, flags.priority as Band);
    if (result.changed.length === 0) this.log(`${result.name} is already in band ${result.band}`);
    else {
      this.log(`${result.name}: band ${result.previous} -> ${result.band}`);
      const below = result.changed.filter((name) => name !== result.name);
      if (below.length > 0) this.log(`  also moved to ${result.band}: ${below.join(', ')}`);
    }
    return result;
  }
}

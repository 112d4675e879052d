import { Flags } from '../oclif.js';
import type { PruneResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { renderPrune } from '../ui/prune.js';
import { pruneAgeMs } from '../api/requests.js';

/**
 * `iris prune`: remove finished runs that ended longer ago than `--older-than` (default: the
 * cluster's `retention`, 7d) with their tasks, attempts, events and log files. The cluster also
 * does this by itself when it starts and every hour.
 */
export default class Prune extends BaseCommand {
  static override summary = 'Remove finished runs older than the retention age, with their logs.';
  static override description =
    'A run goes with its whole job tree: only trees that ended entirely before the cutoff are pruned (a finished ' +
    'child of a running parent stays). ' +
    'Older runs of a name (`NAME@RUN`) are pruned on their own end time. The cluster prunes by itself at start and ' +
    'every hour, at its `retention` age ' +
    '(config, default 7d; `never` turns it off). Not allowed from inside a task (exit 4).';

  static override examples = [
    '<%= config.bin %> prune --dry-run',
    '<%= config.bin %> prune --older-than 30d',
    '<%= config.bin %> prune --older-than 1h --json',
  ];

  static override flags = {
    'older-than': Flags.string({
      summary: "Prune runs that ended longer ago than this (7d, 36h). Default: the cluster's retention.",
    }),
    'dry-run': Flags.boolean({ summary: 'Only list what would be pruned and the log bytes it would free.' }),
  };

  async run(): Promise<PruneResponse> {
    const { flags } = await this.parse(Prune);
    // errors name the flag, before any request
    if (flags['older-than'] !== undefined) pruneAgeMs(flags['older-than'], '--older-than');
    const result = await this.client().prune({
      ...(flags['older-than'] === undefined ? {} : { olderThan: flags['older-than'] }),
      dryRun: flags['dry-run'],
    });
    this.log(renderPrune(result, this.now(), flags['older-than']));
    return result;
  }
}

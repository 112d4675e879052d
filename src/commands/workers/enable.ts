import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { formatWorkerChange } from '../../ui/cluster.js';
import { workerArgs } from '../../ui/command-flags.js';

/**
 * `iris workers enable NAME`: a DISABLED worker (by the user or the elastic coordinator) becomes
 * READY and takes pending tasks at once. An enabled worker is left as it is. Unknown worker:
 * exit 3; a draining or drained one: exit 4 (that is `iris workers resume`).
 */
export default class WorkersEnable extends BaseCommand {
  static override summary = 'Let a disabled worker take tasks again.';
  static override description =
    'The worker becomes READY and pending tasks are placed on it at once. Works on a worker disabled by you or by ' +
    'the elastic coordinator (which may disable it again once it has been idle for `elastic.idle-disable`). ' +
    'Enabling a READY worker changes nothing. Exit 3 for an unknown worker, 4 for one that is draining or ' +
    'drained (put that back with `iris workers resume`).';

  static override examples = [
    '<%= config.bin %> workers enable local',
    '<%= config.bin %> workers enable local --json',
  ];

  static override args = workerArgs;

  async run(): Promise<WorkerInfo> {
    const { args } = await this.parse(WorkersEnable);
    return this.answer(await this.client().enable(args.name), (worker) => formatWorkerChange(worker));
  }
}

import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { formatWorkerChange } from '../../ui/cluster.js';
import { workerArgs } from '../../ui/command-flags.js';

/**
 * `iris workers resume NAME`: undrain. A DRAINED worker becomes READY and new tasks may be
 * placed on it again. Unknown worker: exit 3; a worker that is not drained (or no longer in the
 * cluster's configuration): exit 4. Not the same as `iris workers enable`, which puts back a
 * DISABLED worker (whose running tasks went on) and refuses a drained one: each undoes its own
 * command only.
 */
export default class WorkersResume extends BaseCommand {
  static override summary = 'Put a drained worker back into service (undrain).';
  static override description =
    'The worker becomes READY and pending tasks may be placed on it again. ' +
    'A drain lasts until this command, also across cluster restarts. ' +
    'Exit 3 for an unknown worker, ' +
    "4 for a worker that is not drained or is no longer in the cluster's configuration. " +
    'A disabled worker is put back with `iris workers enable`.';

  static override examples = [
    '<%= config.bin %> workers resume local',
    '<%= config.bin %> workers resume local --json',
  ];

  static override args = workerArgs;

  async run(): Promise<WorkerInfo> {
    const { args } = await this.parse(WorkersResume);
    return this.answer(await this.client().resume(args.name), (worker) => formatWorkerChange(worker));
  }
}

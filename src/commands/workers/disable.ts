import { Flags } from '../../oclif.js';
import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { formatWorkerChange } from '../../ui/cluster.js';
import { workerArgs } from '../../ui/command-flags.js';

/**
 * `iris workers disable NAME`: the worker takes no new tasks; unlike a drain, its running tasks
 * go on. Lasts until `iris workers enable`, across restarts; the elastic coordinator never
 * re-enables a worker the user disabled. Unknown worker: exit 3; a draining or drained one: exit 4.
 * Disabling a disabled worker again succeeds and changes nothing (except that it is now the
 * user's disable).
 */
export default class WorkersDisable extends BaseCommand {
  static override summary = 'Stop placing new tasks on a worker; its running tasks go on.';
  static override description =
    'The worker becomes DISABLED: pending tasks are not placed on it (`iris status` says `worker NAME is disabled ' +
    '(by user)`), while the tasks already running there finish normally — a drain would stop them. It stays ' +
    'disabled until `iris workers enable`, also across cluster restarts, and the elastic coordinator never ' +
    'enables a worker you disabled. Disabling a disabled worker again changes nothing. Exit 3 for an unknown ' +
    'worker, 4 for a worker that is draining or drained.';

  static override examples = [
    '<%= config.bin %> workers disable local',
    '<%= config.bin %> workers disable local --reason "disk check"',
    '<%= config.bin %> workers disable local --json',
  ];

  static override args = workerArgs;

  static override flags = {
    reason: Flags.string({ description: 'Why, in words: `iris workers` shows it beside `by user`.' }),
  };

  async run(): Promise<WorkerInfo> {
    const { args, flags } = await this.parse(WorkersDisable);
    return this.answer(await this.client().disable(args.name, flags.reason), (worker) => {
      const running = worker.runningTasks.length;
      const note = running > 0 ? `${running} running task${running === 1 ? ' goes' : 's go'} on` : '';
      return formatWorkerChange(worker, note);
    });
  }
}

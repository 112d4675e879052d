import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { formatWorkerChange } from '../../ui/cluster.js';
import { workerArgs } from '../../ui/command-flags.js';

export default class WorkersDrain extends BaseCommand {
  static override summary = 'Take a worker out of the cluster.';
  static override description =
    'No new tasks are placed on it; its running tasks are stopped and count as preempted (retried under ' +
    '--max-preemptions), not as failures.';

  static override examples = ['<%= config.bin %> workers drain local'];

  static override args = workerArgs;

  async run(): Promise<WorkerInfo> {
    const { args } = await this.parse(WorkersDrain);
    return this.answer(await this.client().drain(args.name), (worker) => {
      const stopped = worker.runningTasks.length;
      return formatWorkerChange(worker, stopped > 0 ? `${stopped} task${stopped === 1 ? '' : 's'} still stopping` : '');
    });
  }
}

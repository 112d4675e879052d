import { Args } from '../../oclif.js';
import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';

export default class WorkersDrain extends BaseCommand {
  static override summary = 'Take a worker out of the cluster.';
  static override description =
    'No new tasks are placed on it; its running tasks are stopped and count as preempted (retried under --max-preemptions), not as failures.';

  static override examples = ['<%= config.bin %> workers drain local'];

  static override args = {
    name: Args.string({ description: 'Worker name, as `iris workers` shows it.', required: true }),
  };

  async run(): Promise<WorkerInfo> {
    const { args } = await this.parse(WorkersDrain);
    const worker = await this.client().drain(args.name);
    const stopped = worker.runningTasks.length;
    this.log(`worker ${worker.id} is ${worker.state}${stopped > 0 ? ` (${stopped} task${stopped === 1 ? '' : 's'} still stopping)` : ''}`);
    return worker;
  }
}

import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { renderTopology } from '../../ui/topology.js';

export default class Workers extends BaseCommand {
  static override summary = 'Show the cluster topology: TPU slices, GPU hosts and CPU workers, with capacity and use.';
  static override description =
    'TPU hosts are grouped by slice (tpu-name) in tpu-worker-id order with their hostname and chip device paths ' +
    '("none" when no path is known). A CACHED column lists the models and data sets (--uses keys) a worker ' +
    'recently ran, with the time left on each hint, or "loading" while a task using it runs there. A DISABLED ' +
    'worker (`iris workers disable`, or the elastic coordinator) takes no new tasks while its running ones go ' +
    'on; a last table lists who disabled each, why and since when. --json lists every worker with hostname, ' +
    'devicePaths, privileged and disabled (by, reason, disabledAt) where set, and its cache hints (cache: ' +
    'key, expiresAt, loading).';
  static override examples = ['<%= config.bin %> workers', '<%= config.bin %> workers --json'];

  async run(): Promise<WorkerInfo[]> {
    await this.parse(Workers);
    const workers = await this.client().workers();
    this.log(renderTopology(workers, this.style(), this.now()));
    return workers;
  }
}

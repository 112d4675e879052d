import type { WorkerInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { renderWorkers } from '../../ui/cluster.js';

export default class Workers extends BaseCommand {
  static override summary = 'List workers with capacity, use and attributes.';
  static override examples = ['<%= config.bin %> workers', '<%= config.bin %> workers --json'];

  async run(): Promise<WorkerInfo[]> {
    await this.parse(Workers);
    const workers = await this.client().workers();
    this.log(renderWorkers(workers));
    return workers;
  }
}

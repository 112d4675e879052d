import type { ClusterInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { renderClusterStatus } from '../../ui/cluster.js';

export default class ClusterStatus extends BaseCommand {
  static override summary = 'Show the cluster: workers, capacity, usage and queue counts.';
  static override examples = ['<%= config.bin %> cluster status', '<%= config.bin %> cluster status --json'];

  async run(): Promise<ClusterInfo> {
    await this.parse(ClusterStatus);
    const info = await this.client().cluster();
    this.log(renderClusterStatus(info, this.now(), this.style()));
    return info;
  }
}

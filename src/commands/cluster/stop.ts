import { Flags } from '../../oclif.js';
import { BaseCommand } from '../../base-command.js';

export default class ClusterStop extends BaseCommand {
  static override summary = 'Stop the local cluster gracefully.';
  static override description =
    'Running tasks are stopped (SIGTERM, a grace period, then SIGKILL) and the cluster process exits; the command ' +
    'waits ' +
    'until the socket is gone. Stopping when no cluster runs is not an error: it says so and exits 0.';

  static override examples = ['<%= config.bin %> cluster stop', '<%= config.bin %> cluster stop --timeout 120'];

  static override flags = {
    timeout: Flags.integer({ summary: 'Seconds to wait for the cluster to exit.', default: 60, min: 1 }),
  };

  async run(): Promise<{ stopped: boolean; pid: number | null }> {
    const { flags } = await this.parse(ClusterStop);
    const client = this.client();
    if (!(await client.ping())) {
      this.log('no iris cluster is running');
      return { stopped: false, pid: null };
    }
    const { pid } = await client.stopCluster({ wait: true, timeoutMs: flags.timeout * 1000 });
    this.log(`stopped the iris cluster (pid ${pid})`);
    return { stopped: true, pid };
  }
}

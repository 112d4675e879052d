import { Flags } from '@oclif/core';
import { BaseCommand } from '../../base-command.js';
import { IrisError } from '../../model/errors.js';

export default class ClusterStop extends BaseCommand {
  static override summary = 'Stop the local cluster gracefully.';
  static override description =
    'Running tasks are stopped (SIGTERM, a grace period, then SIGKILL) and the cluster process exits; the command waits ' +
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
    const { pid } = await client.cluster();
    await client.stopCluster();
    const deadline = Date.now() + flags.timeout * 1000;
    while ((await client.ping()) || isAlive(pid)) {
      if (Date.now() > deadline) {
        throw new IrisError('unavailable', `the cluster (pid ${pid}) did not stop within ${flags.timeout}s`, `check it with \`iris cluster status\`, or kill it with \`kill ${pid}\``);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    this.log(`stopped the iris cluster (pid ${pid})`);
    return { stopped: true, pid };
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

import type { QueueInfo, UserShareInfo } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { Flags } from '../oclif.js';
import { onlyQueue, renderQueue, renderUsers } from '../ui/queue.js';

export default class Queue extends BaseCommand {
  static override summary = 'List pending jobs in scheduling order, with reasons and reserved start times.';
  static override description =
    'Jobs are listed in the order the scheduler considers them: band first (production, interactive, batch), ' +
    'then the deepest job of the oldest tree. ' +
    'Under the easy, conservative and hybrid policies a blocked job may hold a reservation: the time it is planned ' +
    'to start, ' +
    'computed from the planned ends of running jobs (their time limits, or runtimes predicted from earlier runs of ' +
    'jobs without a time limit of their own). ' +
    'With named queues (config queues:) the jobs are listed per queue, each under its policy; --queue NAME ' +
    'lists one queue. ' +
    'With --users: per user, their running usage, quota, weighted share of the cluster and the part of their ' +
    'running work borrowed beyond a soft quota (it counts as batch and may be reclaimed).';

  static override examples = [
    '<%= config.bin %> queue',
    '<%= config.bin %> queue --json',
    '<%= config.bin %> queue --users',
    '<%= config.bin %> queue --queue gpu',
  ];

  static override flags = {
    queue: Flags.string({
      summary: 'Only the jobs of this named queue (config queues:), with its policy.',
    }),
    users: Flags.boolean({
      summary: 'List users instead: running usage, quota, share and borrowed part (--json: that list).',
    }),
  };

  async run(): Promise<QueueInfo | UserShareInfo[]> {
    const { flags } = await this.parse(Queue);
    const all = await this.client().queue();
    const queue = flags.queue === undefined ? all : onlyQueue(all, flags.queue);
    if (flags.users) {
      const users = queue.users ?? [];
      this.log(renderUsers(users));
      return users;
    }
    this.log(flags.queue === undefined ? renderQueue(queue, this.now()) : renderQueue(queue, this.now(), true));
    return queue;
  }
}

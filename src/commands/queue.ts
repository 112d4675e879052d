import type { QueueInfo } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { renderQueue } from '../ui/queue.js';

export default class Queue extends BaseCommand {
  static override summary = 'List pending jobs in scheduling order, with reasons and reserved start times.';
  static override description =
    'Jobs are listed in the order the scheduler considers them: band first (production, interactive, batch), ' +
    'then the deepest job of the oldest tree. ' +
    'Under the easy, conservative and hybrid policies a blocked job may hold a reservation: the time it is planned ' +
    'to start, ' +
    'computed from the planned ends of running jobs (their time limits, or runtimes predicted from earlier runs of ' +
    'jobs without a time limit of their own).';

  static override examples = ['<%= config.bin %> queue', '<%= config.bin %> queue --json'];

  async run(): Promise<QueueInfo> {
    await this.parse(Queue);
    const queue = await this.client().queue();
    this.log(renderQueue(queue, this.now()));
    return queue;
  }
}

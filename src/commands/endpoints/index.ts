import { Args } from '../../oclif.js';
import type { EndpointInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { renderEndpoints } from '../../ui/cluster.js';

export default class Endpoints extends BaseCommand {
  static override summary = 'List endpoints registered by running tasks.';
  static override description = 'An endpoint disappears when the attempt of the task that registered it ends.';
  static override examples = [
    '<%= config.bin %> endpoints',
    '<%= config.bin %> endpoints train/',
    '<%= config.bin %> endpoints --json',
  ];

  static override args = {
    prefix: Args.string({
      description: 'Only endpoints whose name starts with this prefix (a job path; the leading / may be left out).',
    }),
  };

  async run(): Promise<EndpointInfo[]> {
    const { args } = await this.parse(Endpoints);
    const endpoints = await this.client().endpoints(args.prefix);
    this.log(renderEndpoints(endpoints, this.now()));
    return endpoints;
  }
}

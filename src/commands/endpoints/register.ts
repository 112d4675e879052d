import { Args } from '../../oclif.js';
import type { EndpointInfo } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { requireInTask } from '../../client/task-token.js';

export default class EndpointsRegister extends BaseCommand {
  static override summary = 'Register NAME -> ADDRESS for the running task (only from inside a task).';
  static override description =
    'The endpoint belongs to the calling task attempt (identified by IRIS_TASK_TOKEN), is named under its job ' +
    "(coordinator from a task of /train is /train/coordinator; other jobs' prefixes are refused) and is removed " +
    'when that attempt ends.';

  static override examples = [
    '<%= config.bin %> endpoints register coordinator "$(hostname):8476"',
    '<%= config.bin %> endpoints register metrics http://127.0.0.1:9090',
  ];

  static override args = {
    name: Args.string({ description: 'Endpoint name, e.g. coordinator.', required: true }),
    address: Args.string({ description: 'Address, e.g. host:port or a URL.', required: true }),
  };

  async run(): Promise<EndpointInfo> {
    const { args } = await this.parse(EndpointsRegister);
    requireInTask(this.env, 'endpoint');
    const endpoint = await this.client().registerEndpoint(args.name, args.address);
    this.log(`registered ${endpoint.name} -> ${endpoint.address} (${endpoint.task}[${endpoint.attempt}])`);
    return endpoint;
  }
}

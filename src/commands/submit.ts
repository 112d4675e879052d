import type { SubmitResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { buildSubmitRequest, commandFromArgv, submitFlags, type SubmitFlagValues } from '../ui/submit-flags.js';

export default class Submit extends BaseCommand {
  static override summary = 'Submit a job and print its name.';
  static override description =
    'The command goes after "--". With --replicas N the job becomes N tasks (/NAME/task-0 … task-{N-1}). ' +
    'Inside a running task the job becomes a child of the task\'s job. Starts a local cluster in the background when none is running.';

  static override examples = [
    '<%= config.bin %> submit -- python train.py',
    '<%= config.bin %> submit --name train --replicas 4 --cpu 2 --memory 4GiB -- python train.py --lr 3e-4',
    '<%= config.bin %> submit -n train/eval --gpu H100x8 -e WANDB_MODE=offline -- ./eval.sh',
    '<%= config.bin %> submit --tpu v5litepod-16 --replicas 4 --coschedule tpu-name -- python pretrain.py',
    '<%= config.bin %> submit -c region=us-central1 -c "pool in (a,b)" --max-retries 2 --time-limit 1h -- ./job.sh',
  ];

  static override strict = false;
  static override usage = '<%= command.id %> [FLAGS] -- COMMAND [ARGS…]';
  static override flags = submitFlags;

  async run(): Promise<SubmitResponse> {
    const { flags, argv } = await this.parse(Submit);
    const command = commandFromArgv(this.argv, argv as string[]);
    const request = buildSubmitRequest(flags as SubmitFlagValues, command, { cwd: process.cwd() });
    const client = await this.clusterClient();
    const response = await client.submit(request);
    this.log(response.name);
    return response;
  }
}

import { Flags } from '../oclif.js';
import type { EstimateResponse, SubmitResponse } from '../api/types.js';
import type { PipelineResponse } from '../api/pipeline-request.js';
import { renderPipeline } from '../ui/pipeline.js';
import { BaseCommand } from '../base-command.js';
import { renderEstimate } from '../ui/queue.js';
import * as submit from '../ui/submit-flags.js';

export default class Submit extends BaseCommand {
  static override summary = 'Submit a job and print its name.';
  static override description =
    'The command goes after "--". With --replicas N the job becomes N tasks (/NAME/task-0 … task-{N-1}). ' +
    "Inside a running task the job becomes a child of the task's job. Starts a local cluster in the background when " +
    'none is running, once the job passes the checks that cluster would make (a refused job starts none).';

  static override examples = [
    '<%= config.bin %> submit -- python train.py',
    '<%= config.bin %> submit --name train --replicas 4 --cpu 2 --memory 4GiB -- python train.py --lr 3e-4',
    '<%= config.bin %> submit -n train/eval --gpu H100x8 -e WANDB_MODE=offline -- ./eval.sh',
    '<%= config.bin %> submit --gpu H100x2 --gpu-memory 80GiB --category training --uses llama-3-8b -- python ' +
      'finetune.py',
    '<%= config.bin %> submit --replicas 4 --tpu v5litepod-16 -- python train.py',
    '<%= config.bin %> submit -c region=us-central1 -c "pool in (a,b)" --max-retries 2 --time-limit 1h -- ./job.sh',
    '<%= config.bin %> submit --image python:3.12 --cpu 2 --memory 4GiB -- python -c "print(42)"',
    '<%= config.bin %> submit --image python:3.12 --mount /data/imagenet:/data:ro -e HF_TOKEN -- python train.py',
    '<%= config.bin %> submit --dry-run --replicas 4 --time-limit 2h -- ./train.sh',
    '<%= config.bin %> submit -f pipeline.yaml',
    '<%= config.bin %> submit -f pipeline.yaml --dry-run',
  ];

  static override strict = false;
  static override usage = submit.submitUsage('[--name NAME] [--dry-run]');
  static override flags = {
    ...submit.submitFlags,
    file: submit.pipelineFileFlag(
      'Submit the pipeline in this YAML file: a root job with one child job per stage (docs/pipelines.md).',
    ),
    'dry-run': Flags.boolean({
      summary:
        'Check the job and print when it would start if submitted now (like sbatch --test-only); submit nothing.',
    }),
  };

  async run(): Promise<SubmitResponse | EstimateResponse | PipelineResponse> {
    const { flags, argv } = await this.parse(Submit);
    if (flags.file !== undefined) {
      const file = flags.file;
      const pipeline = await submit.pipelineFromCommandLine(file, flags, argv, process.cwd());
      const response = await submit.withPipelineFile(file, async () => {
        const client = await this.clusterClient({ pipeline });
        return client.submitPipeline({ ...pipeline, ...(flags['dry-run'] ? { dryRun: true } : {}) });
      });
      this.log(renderPipeline(response));
      return response;
    }
    const request = submit.requestFromCommandLine(flags, this.argv, argv, { cwd: process.cwd(), env: this.env });
    const client = await submit.withFlagNames(() => this.clusterClient({ job: request }), request);
    if (flags['dry-run']) {
      const estimate = await submit.withFlagNames(() => client.estimate(request), request);
      this.log(renderEstimate(estimate));
      return estimate;
    }
    const response = await submit.withFlagNames(() => client.submit(request), request);
    // stdout is the name alone (scripts capture it); the run id goes to stderr.
    this.log(response.name);
    this.logToStderr(`submitted ${response.name} (run ${response.run})`);
    return response;
  }
}

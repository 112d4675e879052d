import { Args } from '../oclif.js';
import type { ResultsResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { renderResults } from '../ui/results.js';

export default class Results extends BaseCommand {
  static override summary = "List the results a job's tasks published (iris result set, $IRIS_RESULT_FILE).";
  static override description =
    "One line per task and key: TASK KEY VALUE, values cut to one short line (--json gives them whole). A task's " +
    'results are those of its latest attempt. ' +
    'JOB@RUN reads an older run (see `iris history`); results are kept with their run until it is pruned. Works ' +
    'with the cluster stopped (read-only). ' +
    "Inside a task, any job of the task's own tree may be read (a pipeline stage reads its sibling stages' results).";

  static override examples = [
    '<%= config.bin %> results train',
    '<%= config.bin %> results train@3',
    '<%= config.bin %> results /pipe/train --json',
  ];

  static override args = {
    job: Args.string({ description: 'The job, e.g. train or train@3 (an older run).', required: true }),
  };

  async run(): Promise<ResultsResponse> {
    const { args } = await this.parse(Results);
    const answer = await (await this.readClient()).results(args.job);
    this.log(renderResults(answer));
    return answer;
  }
}

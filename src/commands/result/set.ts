import { Args } from '../../oclif.js';
import type { ResultsResponse } from '../../api/types.js';
import { BaseCommand } from '../../base-command.js';
import { requireInTask } from '../../client/task-token.js';
import { checkResultKey, checkResultValue } from '../../model/results.js';

export default class ResultSet extends BaseCommand {
  static override summary = 'Publish a result KEY=VALUE of the running task (only from inside a task).';
  static override description =
    'The result belongs to the calling task attempt (identified by IRIS_TASK_TOKEN) and is kept with its job run; ' +
    'setting a key again overwrites it. ' +
    'A key is 1-128 letters, digits and `_ . -` (starting with a letter or digit); a value is a string of at most ' +
    '64 KiB; a task holds at most 256 keys. ' +
    "A retried task starts clean: only its latest attempt's results count. Read them with `iris results JOB`. " +
    'A task may also write a JSON object of key -> string to $IRIS_RESULT_FILE; it is read when the attempt ends.';

  static override examples = [
    '<%= config.bin %> result set checkpoint /ckpt/step-1000',
    '<%= config.bin %> result set eval.loss 0.173',
  ];

  static override args = {
    key: Args.string({ description: 'Result key, e.g. checkpoint.', required: true }),
    value: Args.string({ description: 'Result value (a string of at most 64 KiB).', required: true }),
  };

  async run(): Promise<ResultsResponse> {
    const { args } = await this.parse(ResultSet);
    const key = checkResultKey('KEY', args.key);
    const value = checkResultValue('VALUE', args.value);
    requireInTask(this.env, 'result');
    const answer = await this.client().setResult(key, value);
    this.log(`set ${key} for ${this.env.IRIS_TASK_ID ?? 'this task'}`);
    return answer;
  }
}

import type { CancelResponse } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { jobList, jobListArgs } from '../ui/command-flags.js';

export default class Cancel extends BaseCommand {
  static override summary = 'Cancel jobs and their whole subtrees, or single tasks of a job.';
  static override description =
    'Pending and running jobs (and their pending or running descendants) become KILLED; descendants that already ' +
    'finished keep their state. JOB/task-N cancels that one task (like `scancel 12_3`): it ends CANCELLED ' +
    '(stopped with the grace period if running), is no failure, and the job ends by its other tasks (SUCCEEDED ' +
    'when they all succeed); cancelling a member of a --coschedule gang ends the whole job KILLED. A job or ' +
    'task that had already ended is left as it is: "nothing to cancel: /NAME already ended (STATE)", still ' +
    'exit 0 (like `docker stop` of a stopped container); a job that SUCCEEDED while jobs below it still run ' +
    '(a succeeded parent leaves its children running) keeps its state and those jobs are cancelled ' +
    '("cancelled /NAME/bg (below /NAME, which had SUCCEEDED)"); an unknown ' +
    'job or task index is exit 3.';

  static override examples = [
    '<%= config.bin %> cancel train',
    '<%= config.bin %> cancel train/eval sweep-1 sweep-2',
    '<%= config.bin %> cancel sweep/task-3',
  ];

  static override strict = false;
  static override usage = '<%= command.id %> JOB [JOB…]';
  static override args = jobListArgs('Job name(s) to cancel, or tasks of a job (JOB/task-N).');

  async run(): Promise<CancelResponse> {
    const { args, argv } = await this.parse(Cancel);
    const result = await this.client().cancel(jobList(args, argv));
    const style = this.style();
    for (const name of result.cancelled) {
      // A job left running below a named job that had ended (a SUCCEEDED parent): say which and how it ended.
      const above = result.below?.find((b) => b.cancelled.includes(name));
      this.log(`cancelled ${name}${above ? ` (below ${above.name}, which had ${style.state(above.state)})` : ''}`);
    }
    for (const { name, state } of result.alreadyEnded)
      this.log(`nothing to cancel: ${name} already ended (${style.state(state)})`);
    return result;
  }
}

import { Flags } from '../oclif.js';
import type { JobFilter, JobSummary } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { RECENT_MS, hideOldTrees } from '../ui/job-filter.js';
import { parseJobStates } from '../model/states.js';
import { renderJobsTree } from '../ui/jobs-tree.js';

export default class Jobs extends BaseCommand {
  static override summary = 'List jobs as a tree: state, tasks, user, age and reason.';
  static override description =
    'Children are shown under their parents. Job trees that finished more than an hour ago are hidden unless --all ' +
    'is given. ' +
    'Filters apply to single jobs; a job whose parent is filtered out is shown with its full path.';

  static override examples = [
    '<%= config.bin %> jobs',
    '<%= config.bin %> jobs --state running,pending',
    '<%= config.bin %> jobs --prefix train --user alice',
    '<%= config.bin %> jobs --all --json',
  ];

  static override flags = {
    state: Flags.string({
      char: 's',
      summary: 'Only jobs in these states (repeatable or comma-separated, e.g. running,pending).',
      multiple: true,
      multipleNonGreedy: true,
    }),
    prefix: Flags.string({ char: 'p', summary: 'Only jobs at or below this path (e.g. train).' }),
    user: Flags.string({ char: 'u', summary: 'Only jobs of this user.' }),
    all: Flags.boolean({ char: 'a', summary: 'Include job trees that finished more than an hour ago.' }),
  };

  async run(): Promise<JobSummary[]> {
    const { flags } = await this.parse(Jobs);
    const filter: JobFilter = {};
    if (flags.state) filter.state = parseJobStates(flags.state);
    if (flags.prefix) filter.prefix = flags.prefix;
    if (flags.user) filter.user = flags.user;
    const now = this.now();
    // Archived trees that ended earlier are hidden anyway: the cluster need not read them.
    if (!flags.all) filter.recent = now - RECENT_MS;
    const all = await (await this.readClient()).jobs(filter);
    const jobs = flags.all ? all : hideOldTrees(all, now);
    this.log(renderJobsTree(jobs, now, { runs: true, style: this.style() }));
    return jobs;
  }
}

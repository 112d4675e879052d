import { Args, Flags } from '../oclif.js';
import type { HistoryQuery, RunInfo } from '../api/types.js';
import { BaseCommand } from '../base-command.js';
import { invalid } from '../model/errors.js';
import { parseSince } from '../model/since.js';
import { parseJobStates } from '../model/states.js';
import { renderHistory } from '../ui/history.js';

export default class History extends BaseCommand {
  static override summary =
    'List runs, finished and running, with exit codes and measured CPU and memory (like sacct).';
  static override description =
    'Every submission is a run with its own id; a new submission of a finished name starts a new run and keeps the ' +
    'old one. ' +
    'History lists the latest runs and the older ones, newest first: one line per run (CPU summed over its ' +
    'attempts, MAXMEM the highest peak), ' +
    'or one line per attempt with --attempts. Select one run elsewhere as NAME@RUN (iris status train@3, iris logs ' +
    'train@3).';

  static override examples = [
    '<%= config.bin %> history',
    '<%= config.bin %> history train',
    '<%= config.bin %> history --user alice --state failed,killed --since 2h',
    '<%= config.bin %> history --attempts --since 2025-01-02T10:00:00Z --until 1h',
    '<%= config.bin %> history --limit 20 --json',
  ];

  static override args = {
    name: Args.string({ description: 'Only runs of this job and the jobs below it (a name prefix, e.g. train).' }),
  };

  static override flags = {
    name: Flags.string({ char: 'p', summary: 'Only runs at or below this job path (same as the argument).' }),
    user: Flags.string({ char: 'u', summary: 'Only runs of this user.' }),
    state: Flags.string({
      char: 's',
      summary: 'Only runs in these states (repeatable or comma-separated, e.g. failed,killed).',
      multiple: true,
      multipleNonGreedy: true,
    }),
    since: Flags.string({
      summary: 'Only runs active since a duration ago (2h) or an ISO time: running, or finished since then.',
    }),
    until: Flags.string({ summary: 'Only runs submitted before a duration ago (1h) or an ISO time.' }),
    limit: Flags.integer({ char: 'n', summary: 'At most this many runs, newest first.', default: 100, min: 1 }),
    attempts: Flags.boolean({ summary: 'One line per attempt instead of one per run.' }),
  };

  async run(): Promise<RunInfo[]> {
    const { args, flags } = await this.parse(History);
    if (args.name !== undefined && flags.name !== undefined && args.name !== flags.name) {
      throw invalid(`two job names given: ${args.name} and --name ${flags.name}`, 'give the name once');
    }
    const now = this.now();
    const query: HistoryQuery = { limit: flags.limit };
    const prefix = args.name ?? flags.name;
    if (prefix !== undefined) query.prefix = prefix;
    if (flags.user !== undefined) query.user = flags.user;
    if (flags.state !== undefined) query.state = parseJobStates(flags.state);
    if (flags.since !== undefined) query.since = parseSince(flags.since, now, '--since');
    if (flags.until !== undefined) query.until = parseSince(flags.until, now, '--until');
    const runs = await (await this.readClient()).history(query);
    this.log(renderHistory(runs, { attempts: flags.attempts, now, style: this.style() }));
    return runs;
  }
}

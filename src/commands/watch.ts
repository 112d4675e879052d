import { Flags } from '@oclif/core';
import { BaseCommand } from '../base-command.js';
import { loadSnapshot, renderSnapshotText, type WatchSnapshot } from '../ui/watch/snapshot.js';

export default class Watch extends BaseCommand {
  static override summary = 'Live view of jobs, tasks and workers, refreshed on cluster events.';
  static override description =
    'When stdout is not a terminal, under CI=true, with --once or with --json, prints one plain-text (or JSON) snapshot and exits.';

  static override examples = ['<%= config.bin %> watch', '<%= config.bin %> watch --once', '<%= config.bin %> watch --all'];

  static override flags = {
    once: Flags.boolean({ summary: 'Print one snapshot and exit.' }),
    all: Flags.boolean({ char: 'a', summary: 'Include job trees that finished more than an hour ago.' }),
  };

  async run(): Promise<WatchSnapshot | undefined> {
    const { flags } = await this.parse(Watch);
    const client = this.client();
    const live = !flags.once && !this.jsonEnabled() && process.stdout.isTTY && !isCi(this.env);
    if (!live) {
      const snapshot = await loadSnapshot(client, () => this.now(), flags.all);
      this.log(renderSnapshotText(snapshot));
      return snapshot;
    }
    // Fail fast with the usual error when no cluster runs, before taking over the terminal.
    await client.workers();
    const { runWatch } = await import('../ui/watch/run-watch.js');
    await runWatch(client, { all: flags.all });
    return undefined;
  }
}

function isCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';
}

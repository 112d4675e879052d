import { Flags } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { loadSnapshot, renderSnapshotText, type WatchSnapshot } from '../ui/watch/snapshot.js';
import { jsonText } from '../ui/json.js';
import { formatStateChange, stateChange } from '../ui/watch/stream.js';
import { IrisError } from '../model/errors.js';

export default class Watch extends BaseCommand {
  static override summary = 'Live view of jobs, tasks and workers, refreshed on cluster events.';
  static override description =
    'In a terminal, a view that fits the screen: active jobs first, finished ones collapsed, the rest scrolls ' +
    '(arrows, j/k, PgUp/PgDn); q or Ctrl-C quits. ' +
    'With --stream, or when stdout is not a terminal, prints one line per state change of a job or task (after the ' +
    'unfinished jobs as they are), until Ctrl-C (exit 130) or the reader goes away; with --json one JSON object ' +
    'per line. ' +
    'Under CI=true with a terminal, with --once, or with --json alone, prints one plain-text (or JSON) snapshot and ' +
    'exits.';

  static override examples = [
    '<%= config.bin %> watch',
    '<%= config.bin %> watch --once',
    '<%= config.bin %> watch --all',
    '<%= config.bin %> watch --stream',
    '<%= config.bin %> watch --stream --json | jq -c \'select(.type == "job")\'',
  ];

  static override flags = {
    once: Flags.boolean({ summary: 'Print one snapshot and exit.', exclusive: ['stream'] }),
    all: Flags.boolean({ char: 'a', summary: 'Include job trees that finished more than an hour ago.' }),
    stream: Flags.boolean({
      summary:
        'Print one line per state change of a job or task (like kubectl get -w); the default when stdout is not a ' +
        'terminal.',
    }),
  };

  async run(): Promise<WatchSnapshot | undefined> {
    const { flags } = await this.parse(Watch);
    const client = this.client();
    const json = this.jsonEnabled();
    const tty = Boolean(process.stdout.isTTY);
    if (flags.stream || (!flags.once && !json && !tty)) {
      await this.stream(json);
      return undefined;
    }
    const live = !flags.once && !json && !isCi(this.env);
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

  /**
   * Prints state changes until Ctrl-C (exit 130), a reader that went away (exit 0), or the
   * cluster stopping (exit 6, unavailable).
   */
  private async stream(json: boolean): Promise<void> {
    let listing = true;
    const ended = await this.printStream(async (output, signal) => {
      for await (const event of this.client().events(signal, { current: true })) {
        if (event.type === 'cluster' && event.state === 'SYNCED') {
          listing = false;
          continue;
        }
        const change = stateChange(event, listing);
        if (change) await output.write('stdout', (json ? jsonText(change) : formatStateChange(change)) + '\n');
      }
    });
    if (ended === 'closed') return;
    // The cluster ended the stream: it is stopping.
    throw new IrisError(
      'unavailable',
      'the iris cluster closed the stream of state changes (it stopped)',
      'start it with `iris cluster start`, then watch again',
    );
  }
}

function isCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';
}

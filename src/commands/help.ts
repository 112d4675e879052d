import { Args, loadHelpClass } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { unknownCommand } from '../ui/unknown-input.js';

/** One command as `iris help --json` lists it. */
export interface CommandHelp {
  command: string;
  summary: string;
  usage: string;
  flags: string[];
  examples: string[];
}

export default class Help extends BaseCommand {
  static override summary = 'Display help for iris.';
  static override description =
    '`iris help COMMAND…` is the same as `iris COMMAND --help`; `-h` works too. With --json: every command ' +
    '(or the ones named) as {command, summary, usage, flags, examples}.';

  static override examples = [
    '<%= config.bin %> help',
    '<%= config.bin %> help workers drain',
    '<%= config.bin %> help --json',
    '<%= config.bin %> help submit --json',
  ];

  static override strict = false;
  static override args = { command: Args.string({ description: 'The command to show the help of.' }) };

  protected override jsonInstants = false;

  async run(): Promise<CommandHelp[] | undefined> {
    const { argv } = await this.parse(Help);
    const words = argv as string[];
    const bin = this.config.bin;
    const known = this.config.commands.filter((c) => !c.hidden).map((c) => c.id.replaceAll(':', ' '));
    const subject = words.filter((word) => !word.startsWith('-'));
    // A command (what follows it is ignored, as oclif's help does), or exactly a topic.
    const found =
      subject.some((_, i) => this.config.findCommand(subject.slice(0, i + 1).join(':')) !== undefined) ||
      this.config.findTopic(subject.join(':')) !== undefined;
    if (subject.length > 0 && !found) throw unknownCommand(subject.join(' '), known, bin);
    if (!this.jsonEnabled()) {
      const HelpClass = await loadHelpClass(this.config);
      await new HelpClass(this.config, this.config.pjson.oclif.helpOptions).showHelp(words);
      return undefined;
    }
    const named = subject.join(':');
    const commands = this.config.commands
      .filter((c) => !c.hidden && !c.pluginType?.startsWith('jit'))
      .filter((c) => named === '' || c.id === named || c.id.startsWith(`${named}:`))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (commands.length === 0) throw unknownCommand(subject.join(' '), known, bin);
    return commands.map((c) => {
      const command = c.id.replaceAll(':', ' ');
      const flags = Object.entries(c.flags ?? {})
        .filter(([, flag]) => !flag.hidden)
        .map(([name, flag]) => (flag.char ? `-${flag.char}, --${name}` : `--${name}`));
      const examples = (c.examples ?? []).map((e) =>
        (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', bin).replace(/^\$ /, ''),
      );
      return {
        command,
        summary: c.summary ?? c.description?.split('\n')[0] ?? '',
        usage: `${bin} ${command}`,
        flags,
        examples,
      };
    });
  }
}

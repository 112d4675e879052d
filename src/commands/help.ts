import { Args, loadHelpClass } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { commandNames, unknownCommand } from '../ui/unknown-input.js';

/** One command as `iris help --json` lists it. */
export interface CommandHelp {
  command: string;
  summary: string;
  usage: string;
  flags: string[];
  examples: string[];
}

/** oclif's help formatter, as far as `usage` reads it (its methods are protected in the types). */
interface OclifHelp {
  getCommandHelpClass(command: unknown): { defaultUsage(): string };
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
    const { known, runnable } = commandNames(this.config);
    const subject = words.filter((word) => !word.startsWith('-'));
    // Exactly a command or a topic, or a command that takes arguments followed by words (oclif's
    // help reads those as its arguments). Anything else is refused as `iris <words>` refuses it.
    const takesArgs = (id: string) => {
      const command = this.config.findCommand(id);
      return command !== undefined && (command.strict === false || Object.keys(command.args ?? {}).length > 0);
    };
    const found =
      this.config.findCommand(subject.join(':')) !== undefined ||
      this.config.findTopic(subject.join(':')) !== undefined ||
      subject.some((_, i) => i < subject.length - 1 && takesArgs(subject.slice(0, i + 1).join(':')));
    if (subject.length > 0 && !found) throw unknownCommand(subject.join(' '), known, bin, runnable);
    const HelpClass = await loadHelpClass(this.config);
    const help = new HelpClass(this.config, this.config.pjson.oclif.helpOptions);
    if (!this.jsonEnabled()) {
      await help.showHelp(words);
      return undefined;
    }
    const named = subject.join(':');
    const commands = this.config.commands
      .filter((c) => !c.hidden && !c.pluginType?.startsWith('jit'))
      .filter((c) => named === '' || c.id === named || c.id.startsWith(`${named}:`))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (commands.length === 0) throw unknownCommand(subject.join(' '), known, bin, runnable);
    // The USAGE lines of the text help, without their `$ `: the command's own, or oclif's default.
    const usageOf = (c: (typeof commands)[number], command: string): string => {
      const forms = c.usage ? [c.usage].flat() : [(help as unknown as OclifHelp).getCommandHelpClass(c).defaultUsage()];
      return forms
        .map((form) => {
          const rest = form.replace('<%= command.id %>', '').trim();
          const args = rest.startsWith(c.id)
            ? rest.slice(c.id.length)
            : rest.startsWith(command)
              ? rest.slice(command.length)
              : rest;
          return `${bin} ${command} ${args.trim()}`.trim();
        })
        .join('\n');
    };
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
        usage: usageOf(c, command),
        flags,
        examples,
      };
    });
  }
}

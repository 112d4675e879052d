/**
 * What iris says to a command or flag it does not know (docs/cli.md, "Errors"): a usage error
 * (`invalid_argument`, exit 2) naming what was typed, and a hint with the closest known name when
 * one is close enough (`did you mean submit?`, `did you mean --replicas?`), as git and kubectl do.
 * The closeness rule is the one of every "did you mean" of iris (src/model/suggest.ts).
 * Pure: the entry's hook (unknown commands) and the base command (unknown flags) give it the
 * names they know.
 */
import { IrisError } from '../model/errors.js';
import { suggestCommand, suggestKey } from '../model/suggest.js';

/** The flags every start of iris knows before a command: `iris --versoin` is compared with them. */
const ROOT_FLAGS = ['--version', '--help'];

/** What oclif's config lists, as far as the names of its commands and topics go. */
export interface CommandList {
  commands: ReadonlyArray<{ id: string; hidden?: boolean; aliases?: string[] }>;
  topics: ReadonlyArray<{ name: string; hidden?: boolean }>;
}

/**
 * The visible commands and topics as typed (`cluster:status` -> `cluster status`): `known`, what an
 * unknown command is compared with, and `runnable`, the commands among them (not bare topics).
 */
export function commandNames(config: CommandList): { known: string[]; runnable: string[] } {
  const typed = (id: string) => id.replaceAll(':', ' ');
  const runnable = config.commands
    .filter((c) => !c.hidden)
    .flatMap((c) => [c.id, ...(c.aliases ?? [])])
    .map(typed);
  const topics = config.topics.filter((t) => !t.hidden).map((t) => typed(t.name));
  return { known: [...new Set([...runnable, ...topics])], runnable };
}

/**
 * Words after a command that takes no more: `iris jobs running`, `iris status a b`. The base
 * command (oclif's parser) and the hook (a command without arguments) both say it this way.
 */
export function unexpectedArguments(words: readonly string[], usage: string): IrisError {
  const quoted = words.map((word) => `"${word}"`).join(', ');
  return new IrisError(
    'invalid_argument',
    `unexpected argument${words.length === 1 ? '' : 's'} ${quoted}`,
    `see \`${usage}\``,
  );
}

/**
 * An unknown command. `typed` is the command as typed, its words joined by spaces
 * (`sbumit`, `cluster stats`); `commands` are the visible commands and topics the same way;
 * `runnable` the commands among them (not bare topics). Words after a runnable command that are
 * close to none of its subcommands are an unexpected argument of it (`jobs running`,
 * `workers w0`), not an unknown command.
 */
export function unknownCommand(
  typed: string,
  commands: readonly string[],
  bin: string,
  runnable: readonly string[] = [],
): IrisError {
  const help = `\`${bin} --help\` lists the commands`;
  if (typed.startsWith('-')) {
    const flag = typed.split('=')[0]!;
    const close = flag.startsWith('--') ? suggestKey(flag, ROOT_FLAGS) : null;
    const see = `see \`${bin} --help\``;
    return new IrisError('invalid_argument', `unknown flag ${flag}`, close ? `did you mean ${close}? (${see})` : see);
  }
  const close = suggestCommand(typed, commands);
  if (!close) {
    const words = typed.split(' ');
    for (let i = words.length - 1; i > 0; i--) {
      const command = words.slice(0, i).join(' ');
      if (runnable.includes(command)) return unexpectedArguments([words[i]!], `${bin} ${command} --help`);
    }
  }
  return new IrisError(
    'invalid_argument',
    `unknown command "${typed}"`,
    close ? `did you mean ${close}? (${help})` : help,
  );
}

/**
 * Flags the parser did not know. `typed` are the words as typed (`--replica`, `--replica=4`, `-x`);
 * `flags` are the command's flags as `--name`; `usage` is the command's help (`iris submit --help`).
 */
export function unknownFlags(typed: readonly string[], flags: readonly string[], usage: string): IrisError {
  const names = [...new Set(typed.map((word) => word.split('=')[0]!))];
  const see = `see \`${usage}\``;
  // Only a long flag gets a suggestion: every one-letter flag is one edit from any other.
  const suggestions = names
    .filter((name) => name.startsWith('--'))
    .map((name) => suggestKey(name, flags))
    .filter((close): close is string => close !== null);
  const message = `unknown flag${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
  if (suggestions.length === 0) return new IrisError('invalid_argument', message, see);
  return new IrisError('invalid_argument', message, `did you mean ${suggestions.join(', ')}? (${see})`);
}

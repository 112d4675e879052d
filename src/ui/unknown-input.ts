/**
 * What iris says to a command or flag it does not know (docs/cli.md, "Errors"): a usage error
 * (`invalid_argument`, exit 2) naming what was typed, and a hint with the closest known name when
 * one is close enough (`did you mean submit?`, `did you mean --replicas?`), as git and kubectl do.
 * The closeness rule is the one of every "did you mean" of iris (src/model/suggest.ts).
 * Pure: the entry's hook (unknown commands) and the base command (unknown flags) give it the
 * names they know.
 */
import { IrisError } from '../model/errors.js';
import { suggestKey } from '../model/suggest.js';

/**
 * An unknown command. `typed` is the command as typed, its words joined by spaces
 * (`sbumit`, `cluster stats`); `commands` are the visible commands and topics the same way.
 */
export function unknownCommand(typed: string, commands: readonly string[], bin: string): IrisError {
  const help = `\`${bin} --help\` lists the commands`;
  if (typed.startsWith('-')) {
    return new IrisError('invalid_argument', `unknown flag ${typed.split('=')[0]}`, `see \`${bin} --help\``);
  }
  const words = typed.split(' ');
  // A mistyped subcommand of a topic is compared with that topic's commands first
  // (`cluster stats` -> `cluster status`), then with every command.
  const sameTopic = commands.filter((c) => words.length > 1 && c.startsWith(`${words[0]} `));
  const close = (sameTopic.length > 0 ? suggestKey(typed, sameTopic) : null) ?? suggestKey(typed, commands);
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

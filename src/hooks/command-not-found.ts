/**
 * oclif's `command_not_found` hook (package.json, oclif.hooks): `iris sbumit` and `iris cluster
 * stats` get the two-line usage error every command gives (src/ui/error-text.ts), exit 2, with
 * the closest command (src/ui/unknown-input.ts) instead of oclif's own ` ›   Error: command … not
 * found`; a word after a command that takes none (`iris jobs running`, which oclif reads as the
 * command `jobs running`) is `unexpected argument "running"`, as `iris status a b` says. With
 * --json among the words the error is the JSON document on stdout. oclif loads this module only
 * when a command is not found: other starts do not pay for it.
 */
import { errorBody, errorLines } from '../ui/error-text.js';
import { unknownCommand } from '../ui/unknown-input.js';

/** The part of oclif's Config this hook reads. */
interface CommandsConfig {
  bin: string;
  commands: ReadonlyArray<{ id: string; hidden?: boolean; aliases?: string[] }>;
  topics: ReadonlyArray<{ name: string; hidden?: boolean }>;
}

interface NotFound {
  id: string;
  argv?: string[];
  config: CommandsConfig;
}

/** Command ids as typed: `cluster:status` -> `cluster status`. */
const typedForm = (id: string): string => id.replaceAll(':', ' ');

export default async function commandNotFound(options: NotFound): Promise<void> {
  const { config } = options;
  const runnable = config.commands
    .filter((c) => !c.hidden)
    .flatMap((c) => [c.id, ...(c.aliases ?? [])])
    .map(typedForm);
  const known = [...runnable, ...config.topics.filter((t) => !t.hidden).map((t) => typedForm(t.name))];
  const refusal = unknownCommand(typedForm(options.id), [...new Set(known)], config.bin, runnable);
  if (options.argv?.includes('--json')) {
    process.stdout.write(`${JSON.stringify(errorBody(refusal.code, refusal.message, refusal.hint), null, 2)}\n`);
  } else {
    process.stderr.write(errorLines(refusal.message, refusal.hint));
  }
  process.exitCode = 2;
}

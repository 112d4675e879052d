/**
 * oclif's `command_not_found` hook (package.json, oclif.hooks): `iris sbumit` and `iris cluster
 * stats` get the two-line usage error every command gives (src/ui/error-text.ts), exit 2, with
 * the closest command (src/ui/unknown-input.ts) instead of oclif's own ` ›   Error: command … not
 * found`; a word after a command that takes none (`iris jobs running`, which oclif reads as the
 * command `jobs running`) is `unexpected argument "running"`, as `iris status a b` says. With
 * --json among the words the error is the JSON document on stdout. oclif loads this module only
 * when a command is not found: other starts do not pay for it.
 */
import { writeRefusal } from '../ui/error-text.js';
import { commandNames, type CommandList, unknownCommand } from '../ui/unknown-input.js';

interface NotFound {
  id: string;
  argv?: string[];
  config: CommandList & { bin: string };
}

export default async function commandNotFound(options: NotFound): Promise<void> {
  const { config } = options;
  const { known, runnable } = commandNames(config);
  const refusal = unknownCommand(options.id.replaceAll(':', ' '), known, config.bin, runnable);
  writeRefusal(refusal, options.argv?.includes('--json') ?? false);
  process.exitCode = 2;
}

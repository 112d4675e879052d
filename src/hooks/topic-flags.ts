/**
 * oclif's `init` hook (package.json, oclif.hooks): a bare topic with a flag it does not know
 * (`iris cluster --foo`) is refused as a command refuses one (`iris workers --foo`): `unknown flag
 * --foo`, exit 2, instead of the topic's help and exit 0. A topic knows only --help and -h.
 * Every start runs this hook, so it reads only what oclif hands it and loads the error modules
 * only when it refuses.
 */
/** The part of oclif's Config this hook reads. */
interface TopicsConfig {
  bin: string;
  findCommand(id: string): unknown;
  findTopic(id: string): unknown;
}

interface Init {
  id?: string;
  argv: string[];
  config: TopicsConfig;
}

const HELP_FLAGS = ['--help', '-h'];

export default async function topicFlags(options: Init): Promise<void> {
  const { id, argv, config } = options;
  if (!id || id.startsWith('-') || !argv.some((word) => word.startsWith('-'))) return;
  if (argv.some((word) => HELP_FLAGS.includes(word))) return;
  if (config.findCommand(id) || !config.findTopic(id)) return;
  const flags = argv.filter((word) => word.startsWith('-') && word !== '--');
  if (flags.length === 0) return;
  const [{ writeRefusal }, { unknownFlags }] = await Promise.all([
    import('../ui/error-text.js'),
    import('../ui/unknown-input.js'),
  ]);
  const refusal = unknownFlags(flags, ['--help'], `${config.bin} ${id.replaceAll(':', ' ')} --help`);
  writeRefusal(refusal, argv.includes('--json'));
  // What oclif's ExitError carries: its error handler exits with oclif.exit and prints nothing
  // (hooks do not import oclif: the dependency rules keep it to the command layer).
  throw Object.assign(new Error('EEXIT: 2'), { code: 'EEXIT', oclif: { exit: 2 }, skipOclifErrorHandling: true });
}

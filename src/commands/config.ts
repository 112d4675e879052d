import { statSync } from 'node:fs';
import { Flags } from '../oclif.js';
import { BaseCommand } from '../base-command.js';
import { resolveHome } from '../api/address.js';
import { renderConfig, type ConfigView, type RunningConfig } from '../ui/config.js';

export default class Config extends BaseCommand {
  static override summary = 'Show the effective settings and where each came from (file, default, env, flag).';
  static override description =
    'Shows what `iris cluster start` run here with the same flags would load now: the config file (from --config, ' +
    'IRIS_CONFIG, or the search from the current directory; none: the built-in defaults), then every key of the ' +
    'config schema as a dotted path with its value and its source: file (as written there), default (the value ' +
    'iris uses), env (IRIS_HOME) or flag (--metrics-port). When a cluster runs, it also says whether that cluster ' +
    'loaded the same file, and whether the file changed after the cluster started (`iris cluster status` names the ' +
    'file a running cluster loaded).';

  static override examples = [
    '<%= config.bin %> config',
    '<%= config.bin %> config --json',
    '<%= config.bin %> config --config .irisrc.yaml',
    '<%= config.bin %> config --metrics-port 9464',
  ];

  static override flags = {
    config: Flags.string({
      summary: 'Path to a config file, as `cluster start --config` (default: found by searching from here).',
    }),
    'metrics-port': Flags.integer({
      summary: 'As `cluster start --metrics-port`: show metrics.port as that flag would set it.',
      min: 1,
      max: 65535,
    }),
  };

  async run(): Promise<ConfigView> {
    const { flags } = await this.parse(Config);
    // Loaded only here: the config schema (zod) is not needed by other commands.
    const { readEffectiveConfig } = await import('../config/effective.js');
    const home = { value: resolveHome(this.env), ...(this.env.IRIS_HOME?.trim() ? { by: 'IRIS_HOME' as const } : {}) };
    const metricsPort = flags['metrics-port'];
    const effective = await readEffectiveConfig(
      { cwd: process.cwd(), explicitPath: flags.config, env: this.env },
      { home, ...(metricsPort !== undefined ? { metricsPort } : {}) },
    );
    const view: ConfigView = {
      config: { path: effective.file, origin: effective.origin },
      running: await this.running(effective.file),
      settings: effective.settings,
    };
    this.log(renderConfig(view, process.cwd()));
    return view;
  }

  /** The running cluster's file beside the one shown; null when none answers (none is started). */
  private async running(file: string | null): Promise<RunningConfig | null> {
    const client = this.client();
    if (!(await client.ping())) return null;
    const info = await client.cluster();
    const same = info.config.path === file;
    let changed = false;
    if (same && file !== null) {
      try {
        changed = statSync(file).mtimeMs > info.startedAt;
      } catch {
        changed = false;
      }
    }
    return { pid: info.pid, config: info.config, metrics: info.metrics, sameFile: same, changedSinceStart: changed };
  }
}

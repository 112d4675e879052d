import { Flags } from '../../oclif.js';
import { BaseCommand } from '../../base-command.js';
import { resolveHome } from '../../api/address.js';
import { startDetached, type StartedCluster } from '../../client/launcher.js';
import { conflict } from '../../model/errors.js';

export default class ClusterStart extends BaseCommand {
  static override summary = 'Start the local cluster (controller, scheduler and workers in this process).';
  static override description =
    'Runs in the foreground until Ctrl-C (SIGINT) or SIGTERM, which stop it gracefully: running tasks get SIGTERM, ' +
    'a grace period, then SIGKILL. With --detach it starts in the background, waits until its socket answers and ' +
    'returns. ' +
    'State lives in IRIS_HOME (default ~/.iris); workers come from the config file (iris.config.ts, .irisrc.yaml, …) ' +
    "or default to one worker with this machine's CPUs and memory.";

  static override examples = [
    '<%= config.bin %> cluster start',
    '<%= config.bin %> cluster start --detach',
    '<%= config.bin %> cluster start --config ./iris.config.ts --detach',
    'IRIS_HOME=/tmp/iris-dev <%= config.bin %> cluster start',
    '<%= config.bin %> cluster start --detach --metrics-port 9464',
    '<%= config.bin %> cluster start --fresh',
  ];

  static override flags = {
    detach: Flags.boolean({
      char: 'd',
      summary: 'Run in the background and return once the cluster answers.',
      exclusive: ['foreground'],
    }),
    foreground: Flags.boolean({ summary: 'Run in the foreground (the default).', exclusive: ['detach'] }),
    config: Flags.string({
      summary: 'Path to a config file (default: found by searching from the current directory).',
    }),
    'metrics-port': Flags.integer({
      summary:
        'Also serve the Prometheus metrics on http://127.0.0.1:PORT/metrics (loopback only; overrides metrics.port in the config).',
      min: 1,
      max: 65535,
    }),
    fresh: Flags.boolean({
      summary:
        'Start an empty cluster: first move state.db and the logs into IRIS_HOME/aside-<time>/ (nothing is deleted).',
    }),
  };

  async run(): Promise<(StartedCluster & { detached: boolean }) | undefined> {
    const { flags } = await this.parse(ClusterStart);
    const client = this.client();
    if (await client.ping()) {
      const info = await client.cluster();
      throw conflict(
        `a cluster is already running (pid ${info.pid})`,
        `it answers on ${info.socket}; stop it with \`iris cluster stop\``,
      );
    }
    const home = resolveHome(this.env);
    if (flags.detach) {
      const started = await startDetached(home, {
        configPath: flags.config,
        env: this.env,
        metricsPort: flags['metrics-port'],
        fresh: flags.fresh,
      });
      this.log(`iris cluster started in the background (pid ${started.pid}, socket ${started.socket})`);
      if (started.metricsUrl) this.log(`metrics on ${started.metricsUrl}`);
      return { ...started, detached: true };
    }
    // Loaded only here: the whole cluster (store, scheduler, runtime) is not needed by other paths.
    const { runCluster } = await import('../../server/daemon.js');
    const abort = new AbortController();
    const dispose = this.onInterrupt(() => abort.abort());
    try {
      await runCluster({
        home,
        configPath: flags.config,
        signal: abort.signal,
        metricsPort: flags['metrics-port'],
        fresh: flags.fresh,
        onReady: (info) => {
          if (this.jsonEnabled()) this.logJsonLine({ ...info, detached: false });
          else this.log(`iris cluster ready on ${info.socket}`);
        },
      });
    } finally {
      dispose();
    }
    this.logToStderr('iris cluster stopped');
    return undefined;
  }
}

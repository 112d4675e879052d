/**
 * The entry of a detached cluster process (client/launcher.ts starts it with this package's Node):
 * `node cluster-process.js cluster start --foreground [--config PATH] [--metrics-port N] [--fresh]`, IRIS_HOME
 * in its environment. It runs the daemon without the CLI framework: oclif, its help and the
 * command classes would stay loaded for the cluster's whole life (~6 MB resident) and do nothing
 * there. `iris cluster start` in the foreground still goes through the CLI and ends in the same
 * runCluster.
 *
 * What it guarantees, as `iris cluster start --foreground` does: `iris cluster ready on <socket>`
 * once the socket answers; the first SIGINT or SIGTERM stops the cluster gracefully (exit 0, `iris
 * cluster stopped` on stderr); an IrisError is printed as `Error: …` / `Hint: …` and exits with its
 * code (a bad config file 2, a state directory held by another controller 4); anything else is a
 * bug: its stack on stderr, exit 70. The flags were checked by the `cluster start --detach` that
 * started it; a malformed one here is a usage error (exit 2).
 */
import { parseArgs } from 'node:util';
import { resolveHome } from '../api/address.js';
import { EXIT, IrisError } from '../model/errors.js';
import { runCluster } from './daemon.js';

function flagsOf(argv: string[]): { config?: string; metricsPort?: number; fresh?: boolean } {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      foreground: { type: 'boolean' },
      config: { type: 'string' },
      'metrics-port': { type: 'string' },
      fresh: { type: 'boolean' },
    },
  });
  const port = values['metrics-port'];
  const metricsPort = port === undefined ? undefined : Number(port);
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 1 || metricsPort > 65535)) {
    throw new IrisError(
      'invalid_argument',
      `--metrics-port: expected an integer from 1 to 65535, got ${JSON.stringify(port)}`,
    );
  }
  return {
    ...(values.config !== undefined ? { config: values.config } : {}),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    ...(values.fresh ? { fresh: true } : {}),
  };
}

async function main(): Promise<number> {
  const abort = new AbortController();
  // Later signals are ignored while the cluster stops (as base-command.ts's onInterrupt).
  const onSignal = (): void => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const flags = flagsOf(process.argv.slice(2));
    await runCluster({
      home: resolveHome(process.env),
      configPath: flags.config,
      metricsPort: flags.metricsPort,
      fresh: flags.fresh,
      signal: abort.signal,
      onReady: (info) => process.stdout.write(`iris cluster ready on ${info.socket}\n`),
    });
    process.stderr.write('iris cluster stopped\n');
    return EXIT.ok;
  } catch (error) {
    if (error instanceof IrisError) {
      process.stderr.write(`Error: ${error.message}\n${error.hint ? `Hint: ${error.hint}\n` : ''}`);
      return error.exitCode;
    }
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`Error: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(
      `iris: internal error (a bug, please report it)\n${(error as Error).stack ?? String(error)}\n`,
    );
    return EXIT.internal;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().then((code) => {
  process.exitCode = code;
});

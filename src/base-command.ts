/**
 * BaseCommand: every iris command extends it. It adds `--json` and owns the error formatter of the
 * commands (docs/architecture.md, "Errors"; the detached cluster process, server/cluster-process.ts,
 * runs without oclif and prints its own `Error:` / `Hint:` lines, unescaped, into cluster.log):
 *   - IrisError          -> `Error: <message>` / `Hint: <hint>` on stderr (control characters escaped,
 *                           lines kept), exit err.exitCode, no stack;
 *                           with --json: `{"error":{"code","message","hint"}}` on stdout.
 *   - bad flags/args     -> oclif's message, exit 2 (EXIT.usage); an unknown flag is `unknown flag --x`
 *                           with the closest flag of the command (src/ui/unknown-input.ts), a missing
 *                           argument `missing argument JOB`. An unknown
 *                           command never gets here: src/hooks/command-not-found.ts says the same way.
 *   - anything else      -> a bug: the stack trace on stderr, exit 70 (EXIT.internal).
 * Commands return their data; with --json oclif prints it as JSON on stdout, instants as ISO 8601
 * strings (src/ui/json.ts; a command without instants sets `jsonInstants = false`).
 * It also gives commands their colour Style (style(): the one rule is src/ui/colour.ts).
 * It also owns the commands' interrupt rule (onInterrupt; server/cluster-process.ts keeps the same
 * rule for the detached cluster): the first SIGINT or SIGTERM runs the command's handler once;
 * later ones (a second Ctrl-C, or the same one forwarded by bin/run.js) change nothing while the
 * handler is registered.
 */
import { Command, Errors, toConfiguredId } from './oclif.js';
import { EXIT, IrisError } from './model/errors.js';
import { connect, ensureCluster, type ConnectedClient } from './client/connect.js';
import type { ReadClient } from './client/types.js';
import type { SubmitRequest } from './api/types.js';
import type { PipelineRequest } from './api/pipeline-request.js';
import { resolveHome } from './api/address.js';
import { colourEnabled, makeStyle, type Style } from './ui/colour.js';
import { jsonText } from './ui/json.js';
import { errorBody, errorLines } from './ui/error-text.js';
import { unexpectedArguments, unknownFlags } from './ui/unknown-input.js';
import { LogOutput } from './ui/logs.js';
import { flagParseRefusal } from './ui/flag-values.js';

/** A submission a cluster about to be started for it would have to take (BaseCommand.clusterClient). */
export type Submission = { job: SubmitRequest } | { pipeline: PipelineRequest };

function isIrisError(err: unknown): err is IrisError {
  if (err instanceof IrisError) return true;
  const e = err as Partial<IrisError> | null;
  return (
    !!e &&
    typeof e === 'object' &&
    (e as Error).name === 'IrisError' &&
    typeof e.code === 'string' &&
    typeof e.exitCode === 'number'
  );
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  private connected?: ConnectedClient;

  /** Whether --json prints instants as ISO 8601 strings (src/ui/json.ts); false where no field is an instant. */
  protected jsonInstants = true;

  /** The environment commands read (IRIS_HOME, IRIS_CONTROLLER_ADDRESS, …). */
  protected get env(): NodeJS.ProcessEnv {
    return process.env;
  }

  /** A client for the running cluster (errors with `unavailable` on first use when none runs). */
  protected client(): ConnectedClient {
    this.connected ??= connect(this.env);
    return this.connected;
  }

  /**
   * A client for commands that only read (jobs, status, logs, history): the running cluster; or,
   * when no cluster runs in IRIS_HOME (and this is not a task), the state it saved there, read
   * without changing it (src/client/offline-client.ts), with one line on stderr saying so. A cluster
   * that holds the state directory's lock but does not answer is an error, not a reason to
   * show saved state.
   */
  protected async readClient(): Promise<ReadClient> {
    const client = this.client();
    if (this.env.IRIS_CONTROLLER_ADDRESS || (await client.ping())) return client;
    // Only here, when no cluster answers: a start that reaches one skips these modules.
    const [{ stateHolderPid }, { checkStateDir }] = await Promise.all([
      import('./api/lock-holder.js'),
      import('./api/state-dir.js'),
    ]);
    const home = resolveHome(this.env);
    const holder = stateHolderPid(home);
    if (holder !== null) {
      throw new IrisError(
        'unavailable',
        `the iris cluster in ${home} (pid ${holder}) does not answer`,
        'check `iris cluster status`, or stop it with `iris cluster stop`',
      );
    }
    checkStateDir(home);
    const { OfflineClient } = await import('./client/offline-client.js');
    const offline = OfflineClient.open(home);
    process.stderr.write(`iris: no cluster is running; showing the state saved in ${home} (read-only)\n`);
    return offline;
  }

  /**
   * A client for the running cluster, starting a detached local one first when none answers. With
   * `submission`, a cluster is started only for a request one started now would take
   * (server/preflight.ts): a refused one starts nothing.
   */
  protected async clusterClient(submission?: Submission): Promise<ConnectedClient> {
    const beforeStart = submission && (() => this.preflight(submission));
    this.connected = await ensureCluster(this.env, (message) => this.logToStderr(message), beforeStart);
    return this.connected;
  }

  /** What a cluster started now would answer to `submission` (its refusal thrown); loaded only when none answers. */
  private async preflight(submission: Submission): Promise<void> {
    const { preflightPipeline, preflightSubmit } = await import('./server/preflight.js');
    const options = { home: resolveHome(this.env), env: this.env, cwd: process.cwd() };
    if ('job' in submission) await preflightSubmit(submission.job, options);
    else await preflightPipeline(submission.pipeline, options);
  }

  /**
   * Runs `handler` at the first SIGINT or SIGTERM; further signals are ignored until the
   * returned disposer is called (it removes the listeners; call it in a finally).
   */
  protected onInterrupt(handler: (signal: NodeJS.Signals) => void): () => void {
    let fired = false;
    const listener = (signal: NodeJS.Signals) => {
      if (fired) return;
      fired = true;
      handler(signal);
    };
    process.on('SIGINT', listener);
    process.on('SIGTERM', listener);
    return () => {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
    };
  }

  /**
   * The ONE way a command prints a stream until it ends: `pump` writes to `output` while reading
   * with `signal`. Ctrl-C (or SIGTERM) aborts the read and exits 130; a reader that goes away
   * (`| head`, EPIPE) aborts it quietly: 'closed'. Otherwise 'ended' (the stream finished).
   */
  protected async printStream(
    pump: (output: LogOutput, signal: AbortSignal) => Promise<void>,
  ): Promise<'ended' | 'closed'> {
    const abort = new AbortController();
    const dispose = this.onInterrupt(() => abort.abort());
    const output = new LogOutput(() => abort.abort());
    try {
      await pump(output, abort.signal);
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      dispose();
      output.dispose();
    }
    if (output.closed) return 'closed';
    if (abort.signal.aborted) this.exit(130);
    return 'ended';
  }

  /**
   * How a command that makes one call ends: `line(answer)` is its text on stdout (this.log: none
   * with --json) and the answer is returned, for --json to print.
   */
  protected answer<T>(answer: T, line: (answer: T) => string): T {
    this.log(line(answer));
    return answer;
  }

  protected now(): number {
    return Date.now();
  }

  /** How this run paints states: colour per src/ui/colour.ts (stdout a terminal, NO_COLOR, FORCE_COLOR, --json). */
  protected style(): Style {
    return makeStyle(colourEnabled({ env: this.env, isTTY: process.stdout.isTTY === true, json: this.jsonEnabled() }));
  }

  /** Plain JSON (no colours) so scripts can parse it; instants as ISO 8601 strings. */
  protected override logJson(json: unknown): void {
    process.stdout.write(jsonText(json, { indent: 2, instants: this.jsonInstants }) + '\n');
  }

  /** One JSON document per line (NDJSON), for streams such as `iris logs --json`. */
  protected logJsonLine(json: unknown): void {
    process.stdout.write(jsonText(json, { instants: this.jsonInstants }) + '\n');
  }

  /** Print an error the user can act on and exit with `exitCode`. */
  protected fail(code: string, message: string, hint: string | undefined, exitCode: number): never {
    if (this.jsonEnabled()) this.logJson(errorBody(code, message, hint));
    else process.stderr.write(errorLines(message, hint));
    return this.exit(exitCode);
  }

  /** This command's flags as typed (`--name`, `--no-name`), and `--help`: what an unknown flag is compared with. */
  private knownFlags(): string[] {
    const flags = (this.ctor as { flags?: Record<string, { allowNo?: boolean; hidden?: boolean }> }).flags ?? {};
    return [
      ...Object.entries(flags)
        .filter(([, flag]) => !flag.hidden)
        .flatMap(([name, flag]) => (flag.allowNo ? [`--${name}`, `--no-${name}`] : [`--${name}`])),
      '--help',
    ];
  }

  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<never> {
    if (err instanceof Errors.ExitError) throw err;
    if (isIrisError(err)) return this.fail(err.code, err.message, err.hint, err.exitCode);
    // Flag and argument parsing failed: oclif's CLIErrors, or a flag's own parser (before `parsed`).
    if (err instanceof Errors.CLIError || !this.parsed) {
      const usage = [this.config.bin, this.id ? toConfiguredId(this.id, this.config) : '', '--help']
        .filter(Boolean)
        .join(' ');
      const unknown = (err as { flags?: unknown }).flags;
      if (err.message.startsWith('Nonexistent flag') && Array.isArray(unknown)) {
        const known = this.knownFlags();
        const refusal = unknownFlags(unknown as string[], known, usage);
        return this.fail(refusal.code, refusal.message, refusal.hint, EXIT.usage);
      }
      // The arguments oclif's error is about: the extra words, or the missing arguments.
      const args = (err as { args?: unknown }).args;
      if (err.message.startsWith('Unexpected argument') && Array.isArray(args) && args.length > 0) {
        const refusal = unexpectedArguments(args.map(String), usage);
        return this.fail(refusal.code, refusal.message, refusal.hint, EXIT.usage);
      }
      // A missing argument: its name as USAGE shows it (oclif's own message lists the descriptions).
      if (err.message.startsWith('Missing ') && Array.isArray(args) && args.length > 0) {
        const names = (args as { name?: string }[]).map((arg) => (arg.name ?? 'argument').toUpperCase());
        const what = `missing argument${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
        return this.fail('invalid_argument', what, `see \`${usage}\``, EXIT.usage);
      }
      const message = err.message
        .replace(/^The following errors? occurred:\n\s*/, '')
        .replace(/^Parsing (--\S+)\s*\n\t/, '$1: ')
        .replace(/\nSee more help with --help$/, '');
      const value = flagParseRefusal(message, `see \`${usage}\``);
      if (value) return this.fail('invalid_argument', value.message, value.hint, EXIT.usage);
      return this.fail('invalid_argument', message, `see \`${usage}\``, EXIT.usage);
    }
    if (this.jsonEnabled()) {
      this.logJson(errorBody('internal', err.message ?? String(err), undefined));
      process.stderr.write(`${err.stack ?? String(err)}\n`);
    } else {
      process.stderr.write(`iris: internal error (a bug, please report it)\n${err.stack ?? String(err)}\n`);
    }
    return this.exit(EXIT.internal);
  }
}

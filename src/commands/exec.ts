/**
 * `iris exec JOB/task-N [--attempt A] [-i] [-t] -- COMMAND [ARGS…]` (docs/cli.md, "iris exec"):
 * runs a command inside a task's running attempt and streams its output; exits with the
 * command's exit code. -i sends this terminal's input, -t gives the command a pseudo-terminal
 * (with -i: raw keys, the window size followed). Refusals come from the cluster (a task that is
 * not running: exit 3 with its state; outside a task's own subtree: exit 4).
 */
import { Args, Flags } from '../oclif.js';
import type { ExecResult } from '../api/types.js';
import type { ExecConnection } from '../client/exec-client.js';
import { BaseCommand } from '../base-command.js';
import { invalid } from '../model/errors.js';

/** Writes to `stream`, resolving when it has taken the bytes (its buffer drained) so output is paced. */
function writeTo(stream: NodeJS.WriteStream): (data: Buffer) => void | Promise<void> {
  return (data) => {
    if (stream.write(data)) return;
    return new Promise((resolve) => stream.once('drain', resolve));
  };
}

export default class Exec extends BaseCommand {
  static override summary = 'Run a command inside a running task and stream its output; exit with its exit code.';
  static override description =
    "The command runs in the task's current attempt (or --attempt A): in its container (the engine's exec, as the " +
    "container's user), " +
    "in a process task's cgroups, working directory and environment (its IRIS_* variables included, as the task's " +
    'user), ' +
    'or in its Pod on the kubernetes backend. -i sends your input to it; -t gives it a terminal (-it for a shell). ' +
    "The exit code is the command's; a task that is not running is exit 3 with its state. Inside a task only its " +
    'own subtree can be reached. ' +
    'Every exec is recorded on the task and listed by `iris status JOB`. With --json the output goes to stderr and ' +
    '{exitCode, event} to stdout.';

  static override examples = [
    '<%= config.bin %> exec train/task-0 -- nvidia-smi',
    '<%= config.bin %> exec -it train/task-0 -- sh',
    '<%= config.bin %> exec train/task-1 --attempt 2 -- cat /tmp/progress.txt',
    '<%= config.bin %> exec -i train/task-0 -- sh -c "cat > /tmp/input.txt" < input.txt',
  ];

  static override strict = false;
  static override usage = '<%= command.id %> JOB/task-N [--attempt A] [-i] [-t] -- COMMAND [ARGS…]';
  static override args = {
    task: Args.string({ description: 'The task to run the command in: JOB/task-N.', required: true }),
  };

  static override flags = {
    attempt: Flags.integer({
      summary:
        "The attempt to run it in (default: the task's current one); another one is refused (exit 3) once it ended.",
      min: 0,
    }),
    interactive: Flags.boolean({ char: 'i', summary: 'Send your input (stdin) to the command.' }),
    tty: Flags.boolean({
      char: 't',
      summary: 'Give the command a pseudo-terminal (with -i your terminal is put in raw mode and its size followed).',
    }),
  };

  async run(): Promise<ExecResult> {
    const { args, argv, flags } = await this.parse(Exec);
    const dashdash = this.argv.indexOf('--');
    const command = dashdash < 0 ? [] : this.argv.slice(dashdash + 1);
    if (command.length === 0 || command[0] === '')
      throw invalid('no command given', 'put the command after "--": iris exec train/task-0 -- sh');
    const stray = (argv as string[]).filter((arg) => arg !== args.task).find((arg) => !command.includes(arg));
    if (stray !== undefined)
      throw invalid(
        `unexpected argument ${JSON.stringify(stray)} before "--"`,
        'iris exec JOB/task-N [flags] -- COMMAND [ARGS…]',
      );
    const interactive = flags.interactive;
    const terminal = flags.tty;
    if (terminal && interactive && !process.stdin.isTTY) {
      throw invalid(
        '-t with -i needs a terminal on stdin, and the input is not one',
        'leave out -t to send piped input',
      );
    }
    const json = this.jsonEnabled();
    const out = json ? process.stderr : process.stdout;
    const size =
      terminal && process.stdout.isTTY ? { rows: process.stdout.rows, cols: process.stdout.columns } : undefined;
    const conn = await this.client().exec(
      {
        task: args.task,
        command,
        tty: terminal,
        stdin: interactive,
        ...(flags.attempt === undefined ? {} : { attempt: flags.attempt }),
        ...(size ? { size } : {}),
      },
      { stdout: writeTo(out), stderr: writeTo(process.stderr) },
    );
    const result = await this.follow(conn, interactive, terminal);
    if (result.exitCode === 0) return result;
    // A non-zero exit ends the command before oclif could print what it returns.
    if (json) this.logJson(result);
    return this.exit(result.exitCode);
  }

  /**
   * Feeds input (and the terminal's size) to the command until it ends; Ctrl-C without a terminal ends it (exit 130).
   */
  private async follow(conn: ExecConnection, interactive: boolean, terminal: boolean): Promise<ExecResult> {
    const stdin = process.stdin;
    const raw = interactive && terminal && stdin.isTTY === true;
    const onInput = (data: Buffer): void => conn.write(data);
    const onEnd = (): void => conn.endInput();
    const onResize = (): void => conn.resize(process.stdout.rows, process.stdout.columns);
    let interrupted = false;
    const dispose = raw
      ? () => {}
      : this.onInterrupt(() => {
          interrupted = true;
          conn.close();
        });
    if (raw) stdin.setRawMode(true);
    if (interactive) {
      stdin.on('data', onInput);
      stdin.once('end', onEnd);
      stdin.resume();
    }
    if (terminal && process.stdout.isTTY) process.stdout.on('resize', onResize);
    try {
      return await conn.result;
    } catch (error) {
      if (interrupted) return this.exit(130);
      throw error;
    } finally {
      dispose();
      process.stdout.off('resize', onResize);
      if (interactive) {
        stdin.off('data', onInput);
        stdin.off('end', onEnd);
        if (raw) stdin.setRawMode(false);
        stdin.pause();
      }
    }
  }
}

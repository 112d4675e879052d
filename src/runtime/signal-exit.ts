/**
 * The exit code a shell reports for a process a signal ended: 128 + the signal's number
 * (SIGKILL: 137, SIGTERM: 143), 129 for a signal this table does not know. The one signal table
 * of the supervisor (attempt outcomes) and the process runtime (`iris exec` sessions).
 */
const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** 128 + the number of `signal` (1 when it is unknown or null). */
export function signalExitCode(signal: string | null): number {
  return 128 + ((signal && SIGNALS[signal]) || 1);
}

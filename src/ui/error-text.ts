/**
 * How a user error reaches the user (docs/cli.md, "Errors"): two lines on stderr, `Error: …` and
 * `Hint: …`, their lines kept and every other control character escaped (a message can quote what
 * a cluster, a config file or a task sent; docs/security.md); with --json one document on stdout,
 * `{"error":{"code","message","hint"}}`. The base command prints every command's errors through
 * this module, and the entry's hook for an unknown command (src/hooks/command-not-found.ts) prints
 * through it too, so both look the same.
 */
import { escapeControl } from './format.js';

export interface ErrorBody {
  error: { code: string; message: string; hint?: string };
}

/** A message or hint as it may reach the terminal: its lines kept, every other control character escaped. */
export function terminalText(text: string): string {
  return text.split('\n').map(escapeControl).join('\n');
}

/** `Error: <message>` and, when there is a hint, `Hint: <hint>`, each ending with a newline. */
export function errorLines(message: string, hint: string | undefined): string {
  return `Error: ${terminalText(message)}\n${hint ? `Hint: ${terminalText(hint)}\n` : ''}`;
}

/** The --json form of an error. */
export function errorBody(code: string, message: string, hint: string | undefined): ErrorBody {
  return { error: { code, message, ...(hint ? { hint } : {}) } };
}

/**
 * Writes a refusal where the user reads it: with `json` its body on stdout, else its lines on
 * stderr (for the entry's hooks, which run before any command and its base class).
 */
export function writeRefusal(refusal: { code: string; message: string; hint?: string }, json: boolean): void {
  if (json)
    process.stdout.write(`${JSON.stringify(errorBody(refusal.code, refusal.message, refusal.hint), null, 2)}\n`);
  else process.stderr.write(errorLines(refusal.message, refusal.hint));
}

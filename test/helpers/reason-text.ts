/**
 * A reason's text with its instants (src/model/reason-instants.ts) as ISO 8601, the way `--json`
 * prints it: tests written against the text a reason had before its instants became data keep
 * their expected text.
 */
import { renderInstants } from '../../src/model/reason-instants.js';

export function isoReason<T extends string | null | undefined>(reason: T): T {
  return (typeof reason === 'string' ? renderInstants(reason, (t) => new Date(t).toISOString()) : reason) as T;
}

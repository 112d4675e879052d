/**
 * Whether the page can reach a cluster, from GET /v1/cluster's answer. Pure.
 * - `live`: it answered (or refused for another reason, such as an expired session: the views say why);
 * - `stopped`: a read-only dashboard server answered `unavailable` (or a 5xx, or no JSON): the cluster
 *   is stopped and the page shows its saved state without actions;
 * - `gone`: nothing answered at all (a network error: the dashboard server ended with its cluster, or
 *   the cluster restarted on another port): a new link from `iris dashboard` is needed.
 */
import { ApiError } from './api.js';

export type Reach = 'live' | 'stopped' | 'gone';

/** The reach a failed GET /v1/cluster means (`live` for a success: call it with null). */
export function reachOf(error: unknown): Reach {
  if (error === null) return 'live';
  if (!(error instanceof ApiError)) return 'stopped';
  if (error.status === 0) return 'gone';
  return error.code === 'unavailable' || error.status >= 500 ? 'stopped' : 'live';
}

/**
 * The OS user a submission through the owner socket runs for, unless it names another: one small
 * module, so that the check before a cluster starts (preflight.ts) does not load the API server.
 */
import { userInfo } from 'node:os';

export function defaultUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

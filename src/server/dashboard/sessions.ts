/**
 * The dashboard's secrets (docs/api.md, "The dashboard"): one-time login tokens and the sessions
 * they become.
 *
 * Guarantees:
 * - a login token is 256 random bits (node:crypto), valid for LOGIN_TOKEN_TTL_MS after it was
 *   issued, and is taken at most once: `redeem` forgets it whether or not it was still valid;
 * - a session secret is 256 random bits, handed out only by `redeem` of a valid token; it is kept
 *   in memory only (a restarted daemon forgets every session);
 * - neither a token nor a secret is kept as such: the store keeps their SHA-256 digests and looks
 *   a presented value up by its digest, so no comparison of secrets depends on how many leading
 *   characters match;
 * - both are bounded: at most MAX_LOGIN_TOKENS tokens wait (issuing one more forgets the oldest)
 *   and at most MAX_SESSIONS sessions live (a new one ends the one used longest ago); a session
 *   unused for SESSION_IDLE_MS ends.
 *
 * Pure apart from the random source and the clock, both injectable (tests).
 */
import { createHash, randomBytes } from 'node:crypto';

/** How long a login link stays good. */
export const LOGIN_TOKEN_TTL_MS = 5 * 60_000;
/** Login tokens that may wait at once. */
export const MAX_LOGIN_TOKENS = 32;
/** Sessions (browsers logged in) at once. */
export const MAX_SESSIONS = 64;
/** A session nobody used for this long ends. */
export const SESSION_IDLE_MS = 24 * 3_600_000;

export interface SessionStoreOptions {
  now?: () => number;
  /** `bytes` random bytes (default node:crypto's randomBytes). */
  random?: (bytes: number) => Buffer;
}

export interface SessionStore {
  /** A new one-time login token. */
  issueToken(): string;
  /** The token's session secret, or null when the token is unknown, used or expired (it is used up either way). */
  redeem(token: string): string | null;
  /** Is this a live session secret? (Marks it used now.) */
  valid(secret: string | undefined): boolean;
  /** Tokens waiting and sessions alive (for tests and the log). */
  counts(): { tokens: number; sessions: number };
}

const digest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  const now = options.now ?? Date.now;
  const random = options.random ?? randomBytes;
  /** Token digest -> when it expires; a Map keeps issue order, oldest first. */
  const tokens = new Map<string, number>();
  /** Session digest -> when it was last used; re-inserted on use, so the first is the longest unused. */
  const sessions = new Map<string, number>();

  const secret = (): string => random(32).toString('base64url');

  function dropExpiredTokens(at: number): void {
    for (const [key, expires] of tokens) if (expires <= at) tokens.delete(key);
  }

  return {
    issueToken() {
      const at = now();
      dropExpiredTokens(at);
      while (tokens.size >= MAX_LOGIN_TOKENS) tokens.delete(tokens.keys().next().value!);
      const token = secret();
      tokens.set(digest(token), at + LOGIN_TOKEN_TTL_MS);
      return token;
    },
    redeem(token) {
      if (typeof token !== 'string' || token === '' || token.length > 256) return null;
      const key = digest(token);
      const expires = tokens.get(key);
      tokens.delete(key);
      const at = now();
      if (expires === undefined || expires <= at) return null;
      while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      const session = secret();
      sessions.set(digest(session), at);
      return session;
    },
    valid(value) {
      if (typeof value !== 'string' || value === '' || value.length > 256) return false;
      const key = digest(value);
      const used = sessions.get(key);
      if (used === undefined) return false;
      sessions.delete(key);
      const at = now();
      if (at - used >= SESSION_IDLE_MS) return false;
      sessions.set(key, at);
      return true;
    },
    counts: () => ({ tokens: tokens.size, sessions: sessions.size }),
  };
}

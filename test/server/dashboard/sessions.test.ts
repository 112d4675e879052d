import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LOGIN_TOKEN_TTL_MS,
  MAX_LOGIN_TOKENS,
  MAX_SESSIONS,
  SESSION_IDLE_MS,
  createSessionStore,
} from '../../../src/server/dashboard/sessions.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('dashboard sessions', () => {
  it('a token is at least 128 random bits, becomes a session once, and never twice', () => {
    const store = createSessionStore();
    const token = store.issueToken();
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
    const secret = store.redeem(token);
    expect(secret).not.toBeNull();
    expect(secret).not.toBe(token);
    expect(store.valid(secret!)).toBe(true);
    expect(store.redeem(token)).toBeNull();
  });

  it('a token expires after 5 minutes, and an expired one is used up too', () => {
    const t = clock();
    const store = createSessionStore({ now: t.now });
    const late = store.issueToken();
    const inTime = store.issueToken();
    t.advance(LOGIN_TOKEN_TTL_MS - 1);
    expect(store.redeem(inTime)).not.toBeNull();
    t.advance(1);
    expect(store.redeem(late)).toBeNull();
    expect(store.counts().tokens).toBe(0);
  });

  it('unknown, empty, over-long and look-alike values are refused', () => {
    const store = createSessionStore();
    const token = store.issueToken();
    const secret = store.redeem(store.issueToken())!;
    for (const bad of ['', 'x', token.slice(0, -1), `${token}x`, 'a'.repeat(10_000)])
      expect(store.redeem(bad)).toBeNull();
    for (const bad of [undefined, '', secret.slice(0, -1), `${secret}x`, token]) expect(store.valid(bad)).toBe(false);
    expect(store.redeem(token)).not.toBeNull();
  });

  it('keeps at most MAX_LOGIN_TOKENS tokens: the oldest is forgotten', () => {
    const store = createSessionStore();
    const first = store.issueToken();
    const rest = Array.from({ length: MAX_LOGIN_TOKENS }, () => store.issueToken());
    expect(store.counts().tokens).toBe(MAX_LOGIN_TOKENS);
    expect(store.redeem(first)).toBeNull();
    expect(store.redeem(rest.at(-1)!)).not.toBeNull();
  });

  it('keeps at most MAX_SESSIONS sessions: the one used longest ago ends', () => {
    const store = createSessionStore();
    const sessions = Array.from({ length: MAX_SESSIONS }, () => store.redeem(store.issueToken())!);
    expect(store.valid(sessions[0])).toBe(true); // used now: sessions[1] is the longest unused
    const extra = store.redeem(store.issueToken())!;
    expect(store.counts().sessions).toBe(MAX_SESSIONS);
    expect(store.valid(extra)).toBe(true);
    expect(store.valid(sessions[0])).toBe(true);
    expect(store.valid(sessions[1])).toBe(false);
  });

  it('a session unused for SESSION_IDLE_MS ends; use keeps it alive', () => {
    const t = clock();
    const store = createSessionStore({ now: t.now });
    const kept = store.redeem(store.issueToken())!;
    const idle = store.redeem(store.issueToken())!;
    t.advance(SESSION_IDLE_MS - 1);
    expect(store.valid(kept)).toBe(true);
    t.advance(1);
    expect(store.valid(idle)).toBe(false);
    expect(store.valid(kept)).toBe(true);
  });

  it('property: whatever the order of issues and redeems, each token gives at most one session', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 40 }), { maxLength: 120 }), (picks) => {
        const store = createSessionStore();
        const tokens: string[] = [];
        const redeemed = new Set<string>();
        for (const pick of picks) {
          if (pick % 3 === 0 || tokens.length === 0) tokens.push(store.issueToken());
          else {
            const token = tokens[pick % tokens.length]!;
            const secret = store.redeem(token);
            if (secret !== null) {
              expect(redeemed.has(token)).toBe(false);
              redeemed.add(token);
            }
          }
          expect(store.counts().tokens).toBeLessThanOrEqual(MAX_LOGIN_TOKENS);
          expect(store.counts().sessions).toBeLessThanOrEqual(MAX_SESSIONS);
        }
      }),
    );
  });
});

/**
 * The one way to name an attempt (and an endpoint) as a map key, used by the store's journal
 * and by the controller's bookkeeping alike. Keys are `task\u0000n`: job and task names never
 * hold a NUL (see src/model/names.ts), so `splitKey` always recovers both parts.
 */
export const attemptKey = (task: string, attempt: number): string => `${task}\u0000${attempt}`;
/** A cache hint (cache-hints.ts): worker ids hold no NUL either. */
export const hintKey = (worker: string, key: string): string => `${worker}\u0000${key}`;
export const endpointKey = (task: string, name: string): string => `${task}\u0000${name}`;

export function splitKey(key: string): [string, string] {
  const cut = key.indexOf('\u0000');
  return [key.slice(0, cut), key.slice(cut + 1)];
}

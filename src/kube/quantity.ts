/**
 * Kubernetes resource quantities (`500m`, `4`, `16Gi`, `1e3`, `64000Ki`) as numbers iris uses:
 * CPU in millicores, memory in bytes, device counts as integers. Pure. A quantity that cannot
 * be read gives null (the caller decides what a missing value means), never a guess.
 */
const BINARY: Record<string, number> = {
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** The value of a quantity in base units (cores, bytes, devices); null when it is not one. */
export function parseQuantity(text: string | undefined | null): number | null {
  if (typeof text !== 'string') return null;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/.exec(
    text.trim(),
  );
  if (!match) return null;
  const number = Number(match[1]);
  if (match[3] !== undefined) return number * 10 ** Number(match[3]);
  const suffix = match[2] ?? '';
  return number * (BINARY[suffix] ?? DECIMAL[suffix] ?? 1);
}

/** CPU millicores of a quantity (`500m` → 500, `2` → 2000); null when unreadable. */
export function cpuMillis(text: string | undefined | null): number | null {
  const v = parseQuantity(text);
  return v === null ? null : Math.round(v * 1000);
}

/** Whole units of a quantity (bytes, devices), rounded down; null when unreadable. */
export function wholeUnits(text: string | undefined | null): number | null {
  const v = parseQuantity(text);
  return v === null ? null : Math.floor(v);
}

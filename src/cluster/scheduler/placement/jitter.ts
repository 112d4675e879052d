/**
 * The deterministic tie-breaking jitter of adaptive placement (adaptive.ts): jitter(t, w) lies in
 * [−j, +j] and depends only on the task id, the worker id and j. The 32-bit FNV-1a hashes of
 * the two ids are combined as fnv(t) + fnv(w)·0x9e3779b1 (mod 2^32), finished with the murmur3
 * fmix32 avalanche and mapped to [−1, 1) before scaling by j, so the same input always gives the
 * same value and identical workers rotate across tasks. The worker's half (fnv(w)·0x9e3779b1) can
 * be computed once per pass (`jitterMixed`), leaving a few integer operations per candidate.
 */

/** FNV-1a over the UTF-16 code units of `s`, continuing from `h`. */
function fnv(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}

const FNV_OFFSET = 0x811c9dc5;

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** FNV-1a of an id (task or worker). */
export function idHash(id: string): number {
  return fnv(FNV_OFFSET, id);
}

export function jitterFrom(taskHash: number, workerHash: number, j: number): number {
  return jitterMixed(taskHash, Math.imul(workerHash, 0x9e3779b1), j);
}

/** jitterFrom with the worker's hash already multiplied (`mixed` = workerHash·0x9e3779b1 mod 2^32). */
export function jitterMixed(taskHash: number, mixed: number, j: number): number {
  return j === 0 ? 0 : jitterOfHash(pairHash(taskHash, mixed), j);
}

/** The unsigned 32-bit hash of a (task, worker) pair that the jitter is made of (`mixed` as in jitterMixed). */
export function pairHash(taskHash: number, mixed: number): number {
  return fmix32((taskHash + mixed) | 0);
}

/**
 * The jitter of a pair hash u: j·(u / 2^31 − 1), so jitterMixed(t, m, j) = jitterOfHash(pairHash(t, m), j)
 * for j ≠ 0. For j ≥ 0 it never decreases as u grows (each floating-point step is monotone), which
 * lets a scan skip a pair by comparing u alone (adaptive.ts, the tie scan).
 */
export function jitterOfHash(u: number, j: number): number {
  return j * (u / 2 ** 31 - 1);
}

/** The deterministic jitter in [−j, +j] of task `taskId` on worker `workerId`. */
export function jitter(taskId: string, workerId: string, j: number): number {
  return jitterFrom(idHash(taskId), idHash(workerId), j);
}

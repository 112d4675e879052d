/**
 * The terms of the adaptive placement score (adaptive.ts; docs/architecture.md, "Adaptive
 * placement"), pure. For task t and each feasible candidate w:
 *
 *   μ(w)  = 100·GPUs + GPUs × GiB per GPU (0 when unknown) + RAM GiB / 2 + 0.5·cores
 *   μ̂, ĉ  = μ(w) and costPerHour(w) min–max normalised over THIS task's feasible candidates
 *           (x − min) / (max − min), 0 when all are equal
 *   s(w)  = min(age s, 300)·1e-4 + λ·μ̂ − κ·ĉ + reuse(w)
 *   κ     = (1 − λ) + 2·j, j = placement.jitter (costWeight)
 *
 * κ is the cost weight (1 − λ) of the seed plus a tie margin: two workers whose λ·μ̂ − (1 − λ)·ĉ
 * are equal differ by 2·j·Δĉ in s, so the tie goes to the cheaper worker (an expensive big worker
 * and a cheap small one both score 0 under λ = 0.5, issue 31). Workers of one class (equal μ and
 * cost) tie unless warm; the rotation picks among them (classes.ts). With j = 0 there is no
 * margin, no rotation, and an exact tie goes to the worker idle longest (adaptive.ts).
 *
 * Context reuse: w is warm for the job when it holds, for EVERY key the job `uses`, a hint that
 * is loading or has expiresAt > now (stale hints are neutral; reuse.ts). A warm worker gets
 * reuse = REUSE_BONUS · (1 − ĉ(w)) / (1 + n), where n counts the tasks already using that key
 * there: 1 if a hint is loading (a task runs there now) plus the tasks of the same keys this pass
 * placed there; a cold one gets 0. The factor 1 − ĉ(w) (ĉ as in the score) keeps a saved load
 * from buying a dearer host: the bonus is whole on the cheapest candidates and 0 on the dearest,
 * so a warm dear worker never ties or beats a cold cheap one on the bonus alone
 * (docs/simulate.md, "Dispatch study"). The damping means a second task of a model prefers an
 * equally good cold worker only when the warm one is already busy with the model, so one warm
 * worker does not take all work while equally good cold ones idle.
 *
 * Guarantees: every function here depends on its arguments only; the reuse term lies in
 * [0, REUSE_BONUS] and the age term in [0, AGE_CAP_S·AGE_WEIGHT].
 */
import type { WorkerView } from '../types.js';

const GiB = 1024 ** 3;

/** The score added for a warm worker before damping (scores otherwise lie within about [−1, 1]). */
export const REUSE_BONUS = 0.2;
/**
 * The reuse term of a warm worker: REUSE_BONUS scaled by 1 − ĉ (its normalised cost, 0..1)
 * and damped by `warm` (1 + the tasks already using its keys there). At most REUSE_BONUS.
 */
export function reuseBonus(warm: number, costShare: number): number {
  return (REUSE_BONUS * (1 - costShare)) / warm;
}

/** Age term: seconds waited (at most AGE_CAP_S) × AGE_WEIGHT. */
export const AGE_CAP_S = 300;
export const AGE_WEIGHT = 1e-4;

/** κ: the weight of ĉ in the base score, (1 − λ) plus the tie margin 2·j (see the header). */
export function costWeight(lambda: number, jitter: number): number {
  return 1 - lambda + 2 * jitter;
}

/**
 * The base score λ·μ̂ − κ·ĉ (κ = costWeight(λ, jitter)) of a worker with throughput `mu` and cost `cost`, where the
 * pool's μ and cost start at `muMin` and `cMin` and span `muSpan` and `cSpan` (0: all equal).
 * (ranking.ts `base` writes it out on the ranked orders' hot path.)
 */
export function baseScore(
  lambda: number,
  jitter: number,
  mu: number,
  muMin: number,
  muSpan: number,
  cost: number,
  cMin: number,
  cSpan: number,
): number {
  const muTerm = muSpan > 0 ? lambda * ((mu - muMin) / muSpan) : 0;
  return muTerm - (cSpan > 0 ? costWeight(lambda, jitter) * ((cost - cMin) / cSpan) : 0);
}

/** ĉ: `cost` min–max normalised over a pool whose costs start at `cMin` and span `cSpan` (0 when all are equal). */
export function costShare(cost: number, cMin: number, cSpan: number): number {
  return cSpan > 0 ? (cost - cMin) / cSpan : 0;
}

/** The throughput proxy μ of one worker (before normalisation). */
export function throughput(worker: WorkerView): number {
  const gpus = worker.device.type === 'gpu' ? worker.device.count : 0;
  const gpuMemGiB = gpus * ((worker.device.memoryBytes ?? 0) / GiB);
  return 100 * gpus + gpuMemGiB + worker.capacity.memoryBytes / GiB / 2 + 0.5 * (worker.capacity.cpuMillis / 1000);
}

/** The age term of a task waiting since `submittedAt` at `now` (ms). */
export function ageTerm(submittedAt: number, now: number): number {
  return Math.min(Math.max(0, now - submittedAt) / 1000, AGE_CAP_S) * AGE_WEIGHT;
}

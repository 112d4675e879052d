/**
 * Which shape rankings (ranking.ts) each worker still fits during one adaptive pass (adaptive.ts,
 * issue 36), so that a placement on a worker tells exactly the rankings that can change.
 *
 * Guarantees, under ranking.ts's condition (a worker that stops fitting a shape never fits it
 * again in the pass): after `placed(w)` every ranking holding w that w no longer fits has been
 * told (`drop`, or `stillFits` where no capacity was given) and no longer lists w here, and every
 * other one still does. With `capacity` (the pass's free amounts, where the rankings' `feasible`
 * is exactly the free-capacity test of their shape on them, queue/first-fit.ts) the fit is tested
 * directly, cpu / memory / devices against the shape's amounts, with no call per ranking.
 *
 * Cost: per placement O(rankings holding the worker), reading one slice of one typed array; per
 * ranking added O(its workers). Memory: workers × slots Int32 (slots: the most rankings one worker
 * is in, rounded up to a power of two, at least 8); no object per worker.
 */
import type { FreeAmounts } from './filters.js';
import type { ShapeRanking } from './ranking.js';

export class RankingMembers {
  /** Worker w's ranking ids: ids[w·slots, w·slots + len[w]). */
  private ids: Int32Array = new Int32Array(0);
  private slots = 8;
  private readonly len: Int32Array;
  /** Per ranking id: the ranking and its shape's demand (cpu, memory, devices). */
  private readonly rankings: ShapeRanking[] = [];
  private readonly needCpu: number[] = [];
  private readonly needMem: number[] = [];
  private readonly needDev: number[] = [];

  constructor(
    workers: number,
    private readonly capacity: FreeAmounts | null,
  ) {
    this.len = new Int32Array(workers);
  }

  /** A new ranking, whose shape asks for `cpu`, `mem` and `dev` devices, holds the workers of its `list`. */
  add(ranking: ShapeRanking, cpu: number, mem: number, dev: number): void {
    const id = this.rankings.length;
    this.rankings.push(ranking);
    this.needCpu.push(cpu);
    this.needMem.push(mem);
    this.needDev.push(dev);
    const list = ranking.list,
      len = this.len;
    let slots = this.slots;
    if (this.ids.length === 0) this.ids = new Int32Array(len.length * slots);
    let full = false;
    for (let i = 0; i < list.length && !full; i++) full = len[list[i]!] === slots;
    if (full) {
      // Twice the slots per worker, each worker's ids copied to its new slice.
      const old = this.ids;
      this.slots = slots *= 2;
      this.ids = new Int32Array(len.length * slots);
      for (let w = 0; w < len.length; w++)
        this.ids.set(old.subarray((w * slots) / 2, (w * slots) / 2 + len[w]!), w * slots);
    }
    const ids = this.ids;
    for (let i = 0; i < list.length; i++) {
      const w = list[i]!;
      ids[w * slots + len[w]!++] = id;
    }
  }

  /** A task was placed on `w`: the rankings it no longer fits drop it (for the rest of the pass). */
  placed(w: number): void {
    const count = this.len[w]!;
    if (count === 0) return;
    const ids = this.ids,
      rankings = this.rankings,
      from = w * this.slots,
      to = from + count;
    let k = from;
    const cap = this.capacity;
    if (cap === null) {
      for (let i = from; i < to; i++) if (rankings[ids[i]!]!.stillFits(w)) ids[k++] = ids[i]!;
    } else {
      // The free-capacity test (filters.ts covers) on the shape's amounts, w's free amounts read once.
      const cpu = cap.cpu[w]!,
        mem = cap.mem[w]!,
        dev = cap.devCount[w]!;
      const needCpu = this.needCpu,
        needMem = this.needMem,
        needDev = this.needDev;
      for (let i = from; i < to; i++) {
        const r = ids[i]!;
        if (cpu >= needCpu[r]! && mem >= needMem[r]! && dev >= needDev[r]!) ids[k++] = r;
        else rankings[r]!.drop(w);
      }
    }
    this.len[w] = k - from;
  }
}

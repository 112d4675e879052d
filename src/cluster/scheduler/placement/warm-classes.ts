/**
 * One set of keys' warm workers within a task shape's ranking (ranking.ts), for adaptive
 * placement (adaptive.ts), pure. A worker is warm for the keys when it holds a live hint for each
 * (reuse.ts); its warmth (1 + the tasks already using them there) only rises during a pass.
 *
 * Guarantees: the entries are the shape's workers warm at construction, in class order;
 * `least(c)` is the least current warmth among class c's entries that still fit the shape
 * (NO_LEVEL: none) and `pick(c, p, level)` the first such entry of c at or after list position p
 * (cyclically within c) with that warmth. Per μ group (where the ranking has groups) the classes
 * with entries form one segment, cost ascending, so a scan of a segment meets bases in descending
 * order; `head[g]` skips the classes whose entries all stopped fitting.
 *
 * Lazily kept (issue 36, third round): nothing is told of placements. The tree holds a lower
 * bound of each entry's level (warmth only rises, and an entry that stops fitting never fits
 * again, its level then NO_LEVEL, the largest), and a query settles the entries it meets: the
 * least stored level in a range is the least current one once the entry holding it is checked
 * (its current level read from the hints and the ranking) and found equal; where it is not, the
 * entry's stored level is raised and the query repeats. Each repeat raises a stored level, so a
 * query costs O(log n) per entry it settles, and entries of classes no task asks about are never
 * touched. Where nothing changed the answers are exactly those of levels kept current on every
 * placement (adaptive-reference.test.ts checks whole passes).
 */
import { LevelTree, NO_LEVEL } from './classes.js';

/** Stored levels raised by queries since the process started (classes.test.ts counts work with it). */
export const settleCount = { value: 0 };

/** What WarmClasses reads of its ranking. */
export interface WarmHost {
  readonly classes: number;
  isAlive(w: number): boolean;
  /** The member at list position `p` still fits the shape. */
  aliveAt(p: number): boolean;
  /** The shape's feasible workers in class order (list positions). */
  readonly list: Int32Array;
  /** The class of the member at list position `p`. */
  classAtPos(p: number): number;
}

export class WarmClasses {
  /** Each entry's position in the ranking's list (ascending). */
  private readonly pos: Int32Array;
  /** The entries' workers, in class order. */
  readonly workers: Int32Array;
  /** A lower bound of each entry's level (see the header). */
  private readonly tree: LevelTree;
  /** The classes with any entry, in class order, and each one's entries [from, to). */
  readonly list: Int32Array;
  private readonly from: Int32Array;
  private readonly to: Int32Array;
  /** indexOf[c] + 1: class c's index in `list` (0: no entry). */
  private readonly indexOf: Int32Array;
  /** Per μ group, its classes in `list`: [head[g], end[g]); one segment over all without groups. */
  readonly head: Int32Array;
  readonly end: Int32Array;

  constructor(
    private readonly host: WarmHost,
    holders: ArrayLike<number>,
    private readonly levelOf: (w: number) => number,
    posOf: Int32Array,
    groupOf: Int32Array | null,
  ) {
    // The entries' list positions, sorted (class order), then their workers and levels.
    const found = new Int32Array(holders.length);
    let n = 0;
    for (let i = 0; i < holders.length; i++) {
      const w = holders[i]!;
      if (host.isAlive(w) && levelOf(w) > 0) found[n++] = posOf[w]! - 1;
    }
    this.pos = found.slice(0, n).sort();
    this.workers = new Int32Array(n);
    const levels = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      const w = host.list[this.pos[e]!]!;
      this.workers[e] = w;
      levels[e] = levelOf(w);
    }
    this.tree = new LevelTree(levels);
    this.indexOf = new Int32Array(host.classes);
    const list: number[] = [],
      from: number[] = [],
      to: number[] = [];
    for (let e = 0; e < n; e++) {
      const c = host.classAtPos(this.pos[e]!);
      if (list.length === 0 || list[list.length - 1] !== c) {
        list.push(c);
        from.push(e);
        to.push(e);
        this.indexOf[c] = list.length;
      }
      to[to.length - 1] = e + 1;
    }
    this.list = Int32Array.from(list);
    this.from = Int32Array.from(from);
    this.to = Int32Array.from(to);
    const groups = groupOf === null ? 1 : list.length === 0 ? 0 : groupOf[list[list.length - 1]!]! + 1;
    this.head = new Int32Array(groups);
    this.end = new Int32Array(groups);
    if (groupOf === null) this.end[0] = list.length;
    else {
      // Groups are runs of the class order, so each one's classes are a run of `list`.
      this.head.fill(list.length);
      this.end.fill(list.length);
      for (let i = list.length - 1; i >= 0; i--) this.head[groupOf[list[i]!]!] = i;
      for (let i = 0; i < list.length; i++) this.end[groupOf[list[i]!]!] = i + 1;
    }
  }

  /** Entry e's current level: its warmth, NO_LEVEL once it no longer fits the shape. */
  private levelNow(e: number): number {
    return this.host.aliveAt(this.pos[e]!) ? this.levelOf(this.workers[e]!) : NO_LEVEL;
  }

  /** The least current level among entries [a, b), settling the entries met (see the header). */
  private settledLeast(a: number, b: number): number {
    const tree = this.tree;
    for (;;) {
      const e = tree.argLeast(a, b);
      if (e < 0) return NO_LEVEL;
      const stored = tree.level(e),
        now = this.levelNow(e);
      if (now === stored) return now;
      settleCount.value++;
      tree.set(e, now);
    }
  }

  /** The least warmth among the entries of the class at `list[i]` (NO_LEVEL: none fits). */
  leastAt(i: number): number {
    return this.settledLeast(this.from[i]!, this.to[i]!);
  }

  /** The least warmth among class c's entries (NO_LEVEL: none, or none fits). */
  least(c: number): number {
    const i = this.indexOf[c]! - 1;
    return i < 0 ? NO_LEVEL : this.settledLeast(this.from[i]!, this.to[i]!);
  }

  /**
   * The first entry of class c at or after list position `p`, cyclically, with warmth `level`
   * (its least, as `least(c)` just returned): the first whose stored level is at most `level`,
   * once settled (a stale one is raised and the search repeats).
   */
  pick(c: number, p: number, level: number): number {
    const i = this.indexOf[c]! - 1;
    const a = this.from[i]!,
      b = this.to[i]!;
    let lo = a,
      hi = b; // the first entry at or after p
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.pos[mid]! < p) lo = mid + 1;
      else hi = mid;
    }
    const tree = this.tree;
    for (;;) {
      let e = tree.first(lo, b, level);
      if (e < 0) e = tree.first(a, lo, level);
      const now = this.levelNow(e);
      if (now === level) return this.workers[e]!;
      settleCount.value++;
      tree.set(e, now);
    }
  }
}

/**
 * One set of keys' warm workers within a task shape's ranking (ranking.ts), for adaptive
 * placement (adaptive.ts), pure. A worker is warm for the keys when it holds a live hint for each
 * (reuse.ts); its warmth (1 + the tasks already using them there) only rises during a pass.
 *
 * Guarantees: the entries are the shape's workers warm at construction, in class order, each with
 * its current warmth while it fits (NO_LEVEL once it no longer does), provided the ranking calls
 * `drop` and `update` as it is told of placements; `least(c)` is the least warmth among class c's
 * entries and `pick(c, p, level)` the first entry of c at or after list position p (cyclically
 * within c) with that warmth, both O(log n). Per μ group (where the ranking has groups) the
 * classes with entries form one segment, cost ascending, so a scan of a segment meets bases in
 * descending order; `head[g]` skips the classes whose entries all stopped fitting.
 */
import { LevelTree, NO_LEVEL } from './classes.js';

/** What WarmClasses reads of its ranking. */
export interface WarmHost {
  readonly classes: number;
  isAlive(w: number): boolean;
  classOf(w: number): number;
}

export class WarmClasses {
  /** Each entry's position in the ranking's list (ascending). */
  private readonly pos: Int32Array;
  /** The entries' workers, in class order. */
  readonly workers: Int32Array;
  /** entryOf[w] + 1: w's entry (0: none). */
  private readonly entryOf: Int32Array;
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
    host: WarmHost,
    holders: ArrayLike<number>,
    private readonly levelOf: (w: number) => number,
    posOf: Int32Array,
    groupOf: Int32Array | null,
  ) {
    const picked: number[] = [];
    for (let i = 0; i < holders.length; i++) {
      const w = holders[i]!;
      if (host.isAlive(w) && levelOf(w) > 0) picked.push(w);
    }
    picked.sort((a, b) => posOf[a]! - posOf[b]!);
    const n = picked.length;
    this.workers = Int32Array.from(picked);
    this.pos = Int32Array.from(picked, (w) => posOf[w]! - 1);
    this.entryOf = new Int32Array(posOf.length);
    const levels = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      this.entryOf[picked[e]!] = e + 1;
      levels[e] = levelOf(picked[e]!);
    }
    this.tree = new LevelTree(levels);
    this.indexOf = new Int32Array(host.classes);
    const list: number[] = [],
      from: number[] = [],
      to: number[] = [];
    for (let e = 0; e < n; e++) {
      const c = host.classOf(picked[e]!);
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

  /** `w` no longer fits the shape. */
  drop(w: number): void {
    const e = this.entryOf[w]! - 1;
    if (e >= 0) this.tree.set(e, NO_LEVEL);
  }

  /** `w` (still fitting) may have grown warmer. */
  update(w: number): void {
    const e = this.entryOf[w]! - 1;
    if (e >= 0) this.tree.set(e, this.levelOf(w));
  }

  /** The least warmth among the entries of the class at `list[i]` (NO_LEVEL: none fits). */
  leastAt(i: number): number {
    return this.tree.least(this.from[i]!, this.to[i]!);
  }

  /** The least warmth among class c's entries (NO_LEVEL: none, or none fits). */
  least(c: number): number {
    const i = this.indexOf[c]! - 1;
    return i < 0 ? NO_LEVEL : this.tree.least(this.from[i]!, this.to[i]!);
  }

  /** The first entry of class c at or after list position `p`, cyclically, with warmth `level` (its least). */
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
    let e = this.tree.first(lo, b, level);
    if (e < 0) e = this.tree.first(a, lo, level);
    return this.workers[e]!;
  }
}

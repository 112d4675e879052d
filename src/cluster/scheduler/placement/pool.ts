/**
 * FreePool: the workers that can ever host one task shape (same static filters), in snapshot
 * order, with a max-segment-tree over their free cpu, memory and device counts. `findFirst`
 * returns the first worker in order whose free capacity covers a request — exact first-fit —
 * while skipping whole subtrees that cannot fit, so a full cluster answers "no" at the root in
 * O(1) and a partly full one in about O(log n) instead of scanning every worker.
 */
export class FreePool {
  readonly members: Int32Array;
  private readonly size: number;
  private readonly cpu: Float64Array;
  private readonly mem: Float64Array;
  private readonly dev: Float64Array;

  constructor(members: readonly number[], cpu: ArrayLike<number>, mem: ArrayLike<number>, dev: ArrayLike<number>) {
    this.members = Int32Array.from(members);
    let size = 1;
    while (size < members.length) size *= 2;
    this.size = size;
    this.cpu = new Float64Array(2 * size).fill(-1);
    this.mem = new Float64Array(2 * size).fill(-1);
    this.dev = new Float64Array(2 * size).fill(-1);
    for (let i = 0; i < members.length; i++) {
      const w = members[i]!;
      this.cpu[size + i] = cpu[w]!;
      this.mem[size + i] = mem[w]!;
      this.dev[size + i] = dev[w]!;
    }
    for (let node = size - 1; node >= 1; node--) this.pull(node);
  }

  private pull(node: number): void {
    const l = 2 * node;
    const r = l + 1;
    this.cpu[node] = Math.max(this.cpu[l]!, this.cpu[r]!);
    this.mem[node] = Math.max(this.mem[l]!, this.mem[r]!);
    this.dev[node] = Math.max(this.dev[l]!, this.dev[r]!);
  }

  /** Set the free values of the member at `position` (an index into `members`). */
  update(position: number, cpu: number, mem: number, dev: number): void {
    let node = this.size + position;
    this.cpu[node] = cpu;
    this.mem[node] = mem;
    this.dev[node] = dev;
    for (node >>= 1; node >= 1; node >>= 1) this.pull(node);
  }

  /**
   * Position (into `members`) of the first member at or after `from` that fits, or -1. Callers
   * keep `from` per task shape: free capacity only shrinks within a pass, so members before the
   * last answer for a shape can never fit that shape again and need not be searched.
   */
  findFirst(cpu: number, mem: number, dev: number, from = 0): number {
    if (from >= this.members.length) return -1;
    return this.descend(1, 0, this.size, from, cpu, mem, dev);
  }

  /** Search node covering positions [lo, lo + span) restricted to positions >= from. */
  private descend(node: number, lo: number, span: number, from: number, cpu: number, mem: number, dev: number): number {
    if (lo + span <= from) return -1;
    if (this.cpu[node]! < cpu || this.mem[node]! < mem || this.dev[node]! < dev) return -1;
    if (span === 1) return lo;
    const half = span >> 1;
    const left = this.descend(2 * node, lo, half, from, cpu, mem, dev);
    return left >= 0 ? left : this.descend(2 * node + 1, lo + half, half, from, cpu, mem, dev);
  }
}

/**
 * The hashes behind adaptive placement's tie-breaking (the seed's jitter; issue 36 made it the
 * rotation among identical workers, classes.ts), pure. `idHash` is the 32-bit FNV-1a of an id;
 * `taskSlot` finishes a task's id hash with the murmur3 fmix32 avalanche into an unsigned 32-bit
 * slot, so that slot mod m spreads tasks evenly over m workers. The same id always gives the same
 * value.
 */

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a over the UTF-16 code units of an id (task or worker). */
export function idHash(id: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h;
}

/** The task's rotation slot: fmix32 of its id hash, unsigned. */
export function taskSlot(taskHash: number): number {
  let h = taskHash | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

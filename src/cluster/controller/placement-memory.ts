/**
 * The baseline placement modes' memory (scheduler/placement/baselines.ts) in the store's meta
 * table (key `placement_memory`, JSON), so a restarted cluster keeps fixed-pipeline's type
 * bindings, round-robin's cursor and static-worker's bindings of submissions with nothing
 * running. Written in the pass's own transaction, and only when the memory changed (most passes
 * change nothing: a baseline writes when it binds, lets a binding lapse or moves its cursor).
 * Unreadable content is ignored (the modes then start afresh), never fatal.
 */
import type { PlacementMemory } from '../scheduler/types.js';
import type { ClusterStore } from '../state/store.js';

export const PLACEMENT_MEMORY_KEY = 'placement_memory';

interface Stored {
  roots: Array<[string, string]>;
  types: Array<[string, string]>;
  cursor: string | null;
}

function pairs(value: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (!Array.isArray(value)) return map;
  for (const entry of value) {
    if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string')
      map.set(entry[0], entry[1]);
  }
  return map;
}

/** The stored memory, or undefined when there is none (or it cannot be read). */
export function loadPlacementMemory(store: ClusterStore): PlacementMemory | undefined {
  const text = store.getMeta(PLACEMENT_MEMORY_KEY);
  if (text === null) return undefined;
  try {
    const raw = JSON.parse(text) as Partial<Stored>;
    return {
      roots: pairs(raw.roots),
      types: pairs(raw.types),
      cursor: typeof raw.cursor === 'string' ? raw.cursor : null,
    };
  } catch {
    return undefined;
  }
}

/** The stored form of `memory` (JSON text). */
export function placementMemoryText(memory: PlacementMemory): string {
  const stored: Stored = { roots: [...memory.roots], types: [...memory.types], cursor: memory.cursor };
  return JSON.stringify(stored);
}

/** Save `memory` unless the store already holds the same; true when it wrote. */
export function savePlacementMemory(store: ClusterStore, memory: PlacementMemory): boolean {
  const text = placementMemoryText(memory);
  if (store.getMeta(PLACEMENT_MEMORY_KEY) === text) return false;
  store.setMeta(PLACEMENT_MEMORY_KEY, text);
  return true;
}

/**
 * Known TPU variants: total chips, hosts per slice and chips per host. Names follow the
 * accelerator types of Cloud TPU (`v4-8`, `v5litepod-16`, `v5p-8`, `v6e-8`). A v4/v5p name counts
 * TensorCores (2 per chip); v5e/v6e names count chips.
 */
import { invalid } from '../../errors.js';

export interface TpuVariant {
  name: string;
  generation: 'v4' | 'v5e' | 'v5p' | 'v6e';
  chips: number;
  hosts: number;
  chipsPerHost: number;
  /** Per-host chip grid, e.g. "2,2,1". */
  hostBounds: string;
}

function entry(name: string, generation: TpuVariant['generation'], chips: number, chipsPerHost: number, hostBounds: string): TpuVariant {
  return { name, generation, chips, hosts: Math.max(1, Math.ceil(chips / chipsPerHost)), chipsPerHost: Math.min(chips, chipsPerHost), hostBounds };
}

const TABLE: TpuVariant[] = [
  ...[8, 16, 32, 64, 128, 256, 512].map((cores) => entry(`v4-${cores}`, 'v4', cores / 2, 4, '2,2,1')),
  ...[8, 16, 32, 64, 128, 256, 512].map((cores) => entry(`v5p-${cores}`, 'v5p', cores / 2, 4, '2,2,1')),
  entry('v5litepod-1', 'v5e', 1, 1, '1,1,1'),
  entry('v5litepod-4', 'v5e', 4, 4, '2,2,1'),
  entry('v5litepod-8', 'v5e', 8, 8, '2,4,1'),
  ...[16, 32, 64, 128, 256].map((chips) => entry(`v5litepod-${chips}`, 'v5e', chips, 4, '2,2,1')),
  entry('v6e-1', 'v6e', 1, 1, '1,1,1'),
  entry('v6e-4', 'v6e', 4, 4, '2,2,1'),
  entry('v6e-8', 'v6e', 8, 8, '2,4,1'),
  ...[16, 32, 64, 128, 256].map((chips) => entry(`v6e-${chips}`, 'v6e', chips, 4, '2,2,1')),
];

const BY_NAME = new Map(TABLE.map((variant) => [variant.name, variant]));

export function knownTpuVariants(): readonly TpuVariant[] {
  return TABLE;
}

export function tpuVariant(name: string): TpuVariant {
  const found = BY_NAME.get(name.trim().toLowerCase());
  if (!found) {
    const families = ['v4-8', 'v5litepod-16', 'v5p-8', 'v6e-8'].join(', ');
    throw invalid(`unknown TPU variant "${name}"`, `known variants include ${families}; see docs/cli.md for the full table`);
  }
  return found;
}

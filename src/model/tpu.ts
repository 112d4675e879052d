/**
 * Known TPU variants (Cloud TPU accelerator types) and their shape: chips, hosts (VMs) per
 * slice, chips per host, and the grids the TPU runtime reads (`TPU_CHIPS_PER_HOST_BOUNDS`,
 * `TPU_HOST_BOUNDS`). Invariant: chips = product(topology) = hosts * chipsPerHost and
 * topology = chipsPerHostBounds * hostBounds, per axis.
 *
 * Naming follows Cloud TPU: a v4 / v5p name counts TensorCores (2 per chip: `v4-32` is 16
 * chips on 4 hosts), a v5e (`v5litepod-N`) / v6e name counts chips. Multi-host slices of every
 * generation here use hosts of 4 chips in a 2x2 block; single-host v5e/v6e machines have 1, 4
 * or 8 chips.
 */
import { describeValue, invalid } from './errors.js';

export type TpuGeneration = 'v4' | 'v5e' | 'v5p' | 'v6e';

export interface TpuVariant {
  name: string;
  generation: TpuGeneration;
  /** Chips in the whole slice. */
  chips: number;
  /** Hosts (VMs) of the slice: one iris task per host. */
  hosts: number;
  chipsPerHost: number;
  /** Chip grid of the slice, as Cloud TPU writes it: "4x4", "2x2x4". */
  topology: string;
  /** Chip grid of one host (TPU_CHIPS_PER_HOST_BOUNDS), e.g. "2,2,1". */
  chipsPerHostBounds: string;
  /** Host grid of the slice (TPU_HOST_BOUNDS), e.g. "2,2,1" for a 4-host v5litepod-16. */
  hostBounds: string;
}

type Dims = [number, number, number];

function variant(name: string, generation: TpuGeneration, topology: Dims, perHost: Dims, twoD: boolean): TpuVariant {
  const hostDims = topology.map((n, i) => n / perHost[i]!) as Dims;
  if (hostDims.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`tpu table: ${name} topology does not divide into hosts`);
  const product = (d: Dims) => d[0] * d[1] * d[2];
  const shown = twoD ? topology.slice(0, 2) : topology;
  return {
    name,
    generation,
    chips: product(topology),
    hosts: product(hostDims),
    chipsPerHost: product(perHost),
    topology: shown.join('x'),
    chipsPerHostBounds: perHost.join(','),
    hostBounds: hostDims.join(','),
  };
}

const HOST_2X2: Dims = [2, 2, 1];

/** v4 and v5p: 3D tori, 4 chips (8 TensorCores) per host. */
const CUBE_TOPOLOGIES: Array<[number, Dims]> = [
  [8, [2, 2, 1]],
  [16, [2, 2, 2]],
  [32, [2, 2, 4]],
  [64, [2, 4, 4]],
  [128, [4, 4, 4]],
  [256, [4, 4, 8]],
  [512, [4, 8, 8]],
  [1024, [8, 8, 8]],
];

/** v5e and v6e: 2D tori; single-host shapes 1x1, 2x2, 2x4, multi-host from 4x4 in 4-chip hosts. */
const FLAT_TOPOLOGIES: Array<[number, Dims, Dims]> = [
  [1, [1, 1, 1], [1, 1, 1]],
  [4, [2, 2, 1], HOST_2X2],
  [8, [2, 4, 1], [2, 4, 1]],
  [16, [4, 4, 1], HOST_2X2],
  [32, [4, 8, 1], HOST_2X2],
  [64, [8, 8, 1], HOST_2X2],
  [128, [8, 16, 1], HOST_2X2],
  [256, [16, 16, 1], HOST_2X2],
];

const TABLE: TpuVariant[] = [
  ...CUBE_TOPOLOGIES.map(([cores, topology]) => variant(`v4-${cores}`, 'v4', topology, HOST_2X2, false)),
  ...CUBE_TOPOLOGIES.map(([cores, topology]) => variant(`v5p-${cores}`, 'v5p', topology, HOST_2X2, false)),
  ...FLAT_TOPOLOGIES.map(([chips, topology, perHost]) => variant(`v5litepod-${chips}`, 'v5e', topology, perHost, true)),
  ...FLAT_TOPOLOGIES.map(([chips, topology, perHost]) => variant(`v6e-${chips}`, 'v6e', topology, perHost, true)),
];

const BY_NAME = new Map(TABLE.map((entry) => [entry.name, entry]));

export function knownTpuVariants(): readonly TpuVariant[] {
  return TABLE;
}

/** Look up a variant by name (case-insensitive; `v5e-16` is accepted for `v5litepod-16`). */
export function tpuVariant(name: string): TpuVariant {
  const key = name.trim().toLowerCase().replace(/^v5e-/, 'v5litepod-');
  const found = BY_NAME.get(key);
  if (!found) {
    const families = ['v4-8', 'v5litepod-16', 'v5p-8', 'v6e-8'].join(', ');
    throw invalid(
      `unknown TPU variant ${describeValue(name)}`,
      `known variants include ${families}; see docs/configuration.md for the full table`,
    );
  }
  return found;
}

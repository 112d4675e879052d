import { describe, expect, it } from 'vitest';
import { knownTpuVariants, tpuVariant } from '../../src/model/tpu.js';
import { IrisError } from '../../src/model/errors.js';

/**
 * Cloud TPU accelerator types at their common sizes: name, chips, hosts (VMs), chips per
 * host, topology, TPU_CHIPS_PER_HOST_BOUNDS, TPU_HOST_BOUNDS. v4/v5p names count TensorCores
 * (2 per chip); v5e (v5litepod) and v6e names count chips.
 */
const TABLE: Array<[string, number, number, number, string, string, string]> = [
  ['v4-8', 4, 1, 4, '2x2x1', '2,2,1', '1,1,1'],
  ['v4-16', 8, 2, 4, '2x2x2', '2,2,1', '1,1,2'],
  ['v4-32', 16, 4, 4, '2x2x4', '2,2,1', '1,1,4'],
  ['v4-64', 32, 8, 4, '2x4x4', '2,2,1', '1,2,4'],
  ['v4-128', 64, 16, 4, '4x4x4', '2,2,1', '2,2,4'],
  ['v4-256', 128, 32, 4, '4x4x8', '2,2,1', '2,2,8'],
  ['v4-512', 256, 64, 4, '4x8x8', '2,2,1', '2,4,8'],
  ['v5p-8', 4, 1, 4, '2x2x1', '2,2,1', '1,1,1'],
  ['v5p-16', 8, 2, 4, '2x2x2', '2,2,1', '1,1,2'],
  ['v5p-32', 16, 4, 4, '2x2x4', '2,2,1', '1,1,4'],
  ['v5p-128', 64, 16, 4, '4x4x4', '2,2,1', '2,2,4'],
  ['v5litepod-1', 1, 1, 1, '1x1', '1,1,1', '1,1,1'],
  ['v5litepod-4', 4, 1, 4, '2x2', '2,2,1', '1,1,1'],
  ['v5litepod-8', 8, 1, 8, '2x4', '2,4,1', '1,1,1'],
  ['v5litepod-16', 16, 4, 4, '4x4', '2,2,1', '2,2,1'],
  ['v5litepod-32', 32, 8, 4, '4x8', '2,2,1', '2,4,1'],
  ['v5litepod-64', 64, 16, 4, '8x8', '2,2,1', '4,4,1'],
  ['v5litepod-128', 128, 32, 4, '8x16', '2,2,1', '4,8,1'],
  ['v5litepod-256', 256, 64, 4, '16x16', '2,2,1', '8,8,1'],
  ['v6e-1', 1, 1, 1, '1x1', '1,1,1', '1,1,1'],
  ['v6e-4', 4, 1, 4, '2x2', '2,2,1', '1,1,1'],
  ['v6e-8', 8, 1, 8, '2x4', '2,4,1', '1,1,1'],
  ['v6e-16', 16, 4, 4, '4x4', '2,2,1', '2,2,1'],
  ['v6e-32', 32, 8, 4, '4x8', '2,2,1', '2,4,1'],
  ['v6e-256', 256, 64, 4, '16x16', '2,2,1', '8,8,1'],
];

describe('TPU variants', () => {
  it.each(TABLE)(
    '%s: %i chips on %i hosts of %i, topology %s, bounds %s / %s',
    (name, chips, hosts, perHost, topology, chipBounds, hostBounds) => {
      expect(tpuVariant(name)).toMatchObject({
        name,
        chips,
        hosts,
        chipsPerHost: perHost,
        topology,
        chipsPerHostBounds: chipBounds,
        hostBounds,
      });
    },
  );

  it('every entry is consistent: chips = hosts x chips per host = product of the bounds', () => {
    const product = (s: string) =>
      s
        .split(',')
        .map(Number)
        .reduce((a, b) => a * b, 1);
    for (const v of knownTpuVariants()) {
      expect(v.hosts * v.chipsPerHost).toBe(v.chips);
      expect(product(v.chipsPerHostBounds)).toBe(v.chipsPerHost);
      expect(product(v.hostBounds)).toBe(v.hosts);
      expect(
        v.topology
          .split('x')
          .map(Number)
          .reduce((a, b) => a * b, 1),
      ).toBe(v.chips);
    }
  });

  it('names are case-insensitive, v5e-N is v5litepod-N, unknown names are clear errors', () => {
    expect(tpuVariant(' V5LitePod-16 ').name).toBe('v5litepod-16');
    expect(tpuVariant('v5e-16').name).toBe('v5litepod-16');
    let error: unknown;
    try {
      tpuVariant('v5litepod-12');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IrisError);
    expect((error as IrisError).message).toBe('unknown TPU variant "v5litepod-12"');
    expect((error as IrisError).hint).toMatch(/known variants include v4-8, v5litepod-16, v5p-8, v6e-8/);
  });
});

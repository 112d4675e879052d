/**
 * A multi-host TPU variant is one program over all hosts of one slice: one task per host
 * (replicas default to, and must equal, the variant's hosts), co-scheduled by tpu-name so task i
 * runs on tpu-worker-id i. Single-host variants keep replicas as given.
 */
import { describeValue } from '../../model/errors.js';
import { fieldError } from './values.js';
import type { DeviceRequest } from '../../model/resources.js';
import { knownTpuVariants, tpuVariant } from '../../model/tpu.js';
import { TPU_NAME } from '../../model/topology.js';

/** The gang a multi-host TPU job must be, or null for anything else. */
export function tpuGang(
  device: DeviceRequest | null,
  replicas: number | null,
  coschedule: string | null,
): { replicas: number; coschedule: string } | null {
  if (device?.type !== 'tpu') return null;
  const variant = tpuVariant(device.variant);
  if (variant.hosts === 1) return null;
  const sized = (hosts: number) =>
    knownTpuVariants().find((v) => v.generation === variant.generation && v.hosts === hosts)?.name;
  if (replicas !== null && replicas !== variant.hosts) {
    const other = sized(replicas);
    const instead = other ? `, or use a variant with ${replicas} hosts such as ${other}` : '';
    const message =
      replicas > variant.hosts
        ? `replicas: ${variant.name} has ${variant.hosts} hosts; --replicas ${replicas} would need a slice of ` +
          `${replicas} hosts`
        : `replicas: ${variant.name} has ${variant.hosts} hosts and a multi-host TPU job runs one task on each; ` +
          `--replicas ${replicas} would leave ${variant.hosts - replicas} idle`;
    throw fieldError(
      'replicas',
      message,
      `a multi-host TPU job runs one task per host: leave --replicas out or give ${variant.hosts}${instead}`,
    );
  }
  if (coschedule !== null && coschedule !== TPU_NAME) {
    throw fieldError(
      'coschedule',
      `coschedule: a multi-host TPU job (${variant.name}) is co-scheduled by ${TPU_NAME}, got ` +
        `${describeValue(coschedule)}`,
      `its tasks are the hosts of one slice; leave --coschedule out`,
    );
  }
  return { replicas: variant.hosts, coschedule: TPU_NAME };
}

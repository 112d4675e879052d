/** What the config tests validate against: a fixed machine and source file, and a refusal's text. */
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import { refusal } from '../helpers/refusal.js';

export const SOURCE = '/p/.irisrc.yaml';

/** An 8-CPU, 32 GiB machine without accelerators. */
export const PROBE: MachineProbe = {
  cpus: () => 8,
  memoryBytes: () => 32 * 1024 ** 3,
  gpus: () => [],
  tpuDevicePaths: () => [],
};

/** `message | hint` of the refusal of config `raw`. */
export function messageOf(raw: unknown): string {
  const error = refusal(() => validateConfig(raw, SOURCE, PROBE));
  return `${error.message} | ${error.hint ?? ''}`;
}

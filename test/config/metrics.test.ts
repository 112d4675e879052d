import { describe, expect, it } from 'vitest';
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import { refusal } from '../helpers/refusal.js';

const SOURCE = '/p/.irisrc.yaml';
const PROBE: MachineProbe = {
  cpus: () => 8,
  memoryBytes: () => 32 * 1024 ** 3,
  gpus: () => [],
  tpuDevicePaths: () => [],
};

function messageOf(raw: unknown): string {
  const error = refusal(() => validateConfig(raw, SOURCE, PROBE));
  return `${error.message} | ${error.hint ?? ''}`;
}

describe('config: metrics', () => {
  it('defaults: no port, no density series, 60 s buckets', () => {
    expect(validateConfig({}, SOURCE, PROBE).metrics).toEqual({ port: null, density: false, densityBucketMs: 60_000 });
  });

  it('reads port, density and density-bucket', () => {
    expect(
      validateConfig({ metrics: { port: 9464, density: true, 'density-bucket': '5m' } }, SOURCE, PROBE).metrics,
    ).toEqual({ port: 9464, density: true, densityBucketMs: 300_000 });
  });

  it('refuses a bad port, a too short bucket and unknown keys with the key named', () => {
    expect(messageOf({ metrics: { port: 70000 } })).toMatch(
      /metrics\.port.*expected a TCP port from 1 to 65535 \| for example 9464/,
    );
    expect(messageOf({ metrics: { 'density-bucket': '10ms' } })).toMatch(/density-bucket.*must be at least 1s/);
    expect(messageOf({ metrics: { densty: true } })).toMatch(/densty/);
  });
});

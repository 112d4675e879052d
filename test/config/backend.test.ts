/** `backend:` in the cluster config: local by default, kubernetes with its settings, clear errors. */
import { describe, expect, it } from 'vitest';
import { validateConfig, type MachineProbe } from '../../src/config/index.js';
import type { IrisError } from '../../src/model/errors.js';
import { refusal } from '../helpers/refusal.js';

const PROBE: MachineProbe = {
  cpus: () => 8,
  memoryBytes: () => 32 * 1024 ** 3,
  gpus: () => [],
  tpuDevicePaths: () => [],
};
const SOURCE = '/proj/.irisrc.yaml';

const errorOf = (raw: unknown): IrisError => refusal(() => validateConfig(raw, SOURCE, PROBE));

describe('backend', () => {
  it('is local by default and with kind: local', () => {
    expect(validateConfig({}, SOURCE, PROBE).backend).toEqual({ kind: 'local' });
    expect(validateConfig({ backend: { kind: 'local' } }, SOURCE, PROBE).backend).toEqual({ kind: 'local' });
  });

  it('a block without kind (or with kind: null) is local, and its kubernetes keys are still refused', () => {
    expect(validateConfig({ backend: {} }, SOURCE, PROBE).backend).toEqual({ kind: 'local' });
    expect(validateConfig({ backend: { kind: null } }, SOURCE, PROBE).backend).toEqual({ kind: 'local' });
    expect(errorOf({ backend: { namespace: 'jobs' } }).message).toMatch(/namespace is a setting of the kubernetes/);
  });

  it('kubernetes: defaults, and a relative kubeconfig resolved against the config file', () => {
    expect(validateConfig({ backend: { kind: 'kubernetes' } }, SOURCE, PROBE).backend).toEqual({
      kind: 'kubernetes',
      kubeconfig: null,
      context: null,
      namespace: 'default',
      image: null,
    });
    expect(
      validateConfig(
        {
          backend: {
            kind: 'kubernetes',
            kubeconfig: 'kc.yaml',
            context: 'gke',
            namespace: 'jobs',
            image: 'python:3.12',
          },
        },
        SOURCE,
        PROBE,
      ).backend,
    ).toEqual({
      kind: 'kubernetes',
      kubeconfig: '/proj/kc.yaml',
      context: 'gke',
      namespace: 'jobs',
      image: 'python:3.12',
    });
  });

  it('a misspelt kind suggests the right one and lists the kinds', () => {
    const e = errorOf({ backend: { kind: 'kubernets' } });
    expect(e.message).toMatch(/backend\.kind: invalid backend kind "kubernets"/);
    expect(e.message).toMatch(/kubernetes/);
    expect(e.hint).toMatch(/local, kubernetes/);
  });

  it('a bad namespace, an unknown key, and kubernetes settings without kind: kubernetes are errors with hints', () => {
    const ns = errorOf({ backend: { kind: 'kubernetes', namespace: 'My_NS' } });
    expect(ns.message).toMatch(/backend\.namespace: invalid namespace "My_NS"/);
    expect(ns.hint).toMatch(/lower-case/);
    expect(errorOf({ backend: { kind: 'kubernetes', nodes: 3 } }).message).toMatch(/backend.*nodes/);
    const local = errorOf({ backend: { kind: 'local', namespace: 'jobs' } });
    expect(local.message).toMatch(/namespace is a setting of the kubernetes backend/);
    expect(local.hint).toMatch(/kind: kubernetes/);
    expect(errorOf({ backend: 'kubernetes' }).message).toMatch(
      /backend: expected an object such as \{ kind: kubernetes/,
    );
  });
});

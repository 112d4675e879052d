/** The last look at a container's user mounts before the engine binds them (src/runtime/docker/mount-check.ts). */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkUserMounts } from '../../src/runtime/docker/mount-check.js';
import type { ContainerSpec } from '../../src/runtime/types.js';

const spec = (mounts: ContainerSpec['mounts']): ContainerSpec => ({
  image: 'x',
  devices: [],
  gpuIds: [],
  mounts,
  shmBytes: null,
  memlockUnlimited: false,
  privileged: false,
  network: 'bridge',
});

describe('checkUserMounts', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'iris-mountcheck-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "passes real paths, refuses one a link has replaced since the submit, and one that is gone; iris's own mounts " +
      'are not checked',
    () => {
      const data = path.join(dir, 'data');
      mkdirSync(data);
      const mount = { host: data, container: '/data', readOnly: false, user: true };
      expect(() =>
        checkUserMounts(spec([mount, { host: '/nonexistent-iris-dir', container: '/x', readOnly: true }])),
      ).not.toThrow();
      renameSync(data, path.join(dir, 'data.old'));
      symlinkSync('/etc', data);
      expect(() => checkUserMounts(spec([mount]))).toThrow(
        `refusing to mount ${data} at /data: ` +
          'it resolves to /etc since the job was submitted (a link was put on its way)',
      );
      rmSync(data);
      expect(() => checkUserMounts(spec([mount]))).toThrow(`cannot mount ${data} at /data: it no longer exists`);
    },
  );
});

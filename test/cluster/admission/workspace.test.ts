/**
 * What a job sees of the host (src/cluster/admission/workspace.ts), as tables over a fake host:
 * the submit directory mounted and used as the working directory, --mount, the config's mounts,
 * the refusals (missing, forbidden, unreadable, a process job, the kubernetes backend), the
 * owner's uid:gid as the container user, and a task's children, which inherit their parent's
 * mounts and never get a host path outside them (a property).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jobWorkspace, type JobWorkspace } from '../../../src/cluster/admission/workspace.js';
import {
  resolveJob,
  type AdmissionDefaults,
  type AdmissionRequest,
  type HostPaths,
} from '../../../src/cluster/admission/index.js';
import type { CallerIsolation, TaskCaller } from '../../../src/model/caller.js';
import { IrisError } from '../../../src/model/errors.js';
import { isWithinPath, type Mount } from '../../../src/model/mounts.js';

/** A host whose existing paths are these (links: path -> real path); everything else is missing. */
const LINKS: Record<string, string> = {
  '/home/u/link-to-iris': '/home/u/.iris',
  '/home/u/proj/data-link': '/srv/data',
  '/home/u/proj/up': '/home/u',
  '/home/u/proj/etc-link': '/etc',
};
const EXISTING = new Set([
  '/home/u',
  '/home/u/proj',
  '/home/u/proj/sub',
  '/home/u/.iris',
  '/home/u/.iris/run',
  '/srv/data',
  '/srv/data/a',
  '/root/proj',
  '/',
  '/proc',
  '/etc',
]);
const HOST: HostPaths = {
  hostPath: (p) => LINKS[p] ?? (EXISTING.has(p) ? p : null),
  unreadable: (real, uid) => (uid !== 0 && real.startsWith('/root') ? '/root is drwx------ of 0:0' : null),
};
const DEFAULTS: AdmissionDefaults = {
  user: 'u',
  cwd: '/home/u',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
  owner: { uid: 1000, gid: 1000 },
  containerUser: '65534:65534',
  forbiddenHostPaths: { stateDirs: ['/home/u/.iris'], engineSockets: ['/var/run/docker.sock'] },
};
const BASE: TaskCaller = { task: '/p/task-0', job: '/p', attempt: 0, user: 'u', env: {}, rootSubmittedAt: 1 };

function placed(
  request: Partial<AdmissionRequest>,
  options: {
    caller?: TaskCaller | null;
    defaults?: Partial<AdmissionDefaults>;
    image?: string | null;
    user?: string | null;
  } = {},
): JobWorkspace | IrisError {
  try {
    return jobWorkspace(
      { command: ['true'], ...request },
      options.caller ?? null,
      { ...DEFAULTS, ...options.defaults },
      HOST,
      {
        image: options.image === undefined ? 'python:3.12' : options.image,
        containerUser: options.user ?? null,
      },
    );
  } catch (error) {
    if (error instanceof IrisError) return error;
    throw error;
  }
}

function ok(got: JobWorkspace | IrisError): JobWorkspace {
  if (got instanceof IrisError) throw new Error(`refused: ${got.message}`);
  return got;
}

function refused(got: JobWorkspace | IrisError): IrisError {
  if (!(got instanceof IrisError)) throw new Error(`admitted: ${JSON.stringify(got)}`);
  return got;
}

describe('a container job of the owner', () => {
  it(
    'gets its submit directory mounted read-write at the same path, as its working directory, running as the ' +
      "owner's uid:gid",
    () => {
      expect(ok(placed({ workspace: '/home/u/proj' }))).toEqual({
        mounts: [{ source: '/home/u/proj', target: '/home/u/proj', readOnly: false }],
        cwd: '/home/u/proj',
        containerUser: '1000:1000',
      });
    },
  );

  it(
    "--cwd overrides the working directory; --no-workspace and the config's workspace: false leave the mount " + 'out',
    () => {
      expect(ok(placed({ workspace: '/home/u/proj', cwd: '/home/u/proj/sub' }))).toMatchObject({
        cwd: '/home/u/proj/sub',
      });
      expect(ok(placed({ workspace: '/home/u/proj', mountWorkspace: false }))).toEqual({
        mounts: [],
        cwd: null,
        containerUser: null,
      });
      expect(ok(placed({ workspace: '/home/u/proj' }, { defaults: { workspace: false } }))).toEqual({
        mounts: [],
        cwd: null,
        containerUser: null,
      });
      expect(
        ok(placed({ workspace: '/home/u/proj', mountWorkspace: true }, { defaults: { workspace: false } })),
      ).toMatchObject({ cwd: '/home/u/proj' });
    },
  );

  it("a container user asked for is kept; a root owner's containers keep the configured user", () => {
    expect(ok(placed({ workspace: '/home/u/proj' }, { user: '2000:2000' })).containerUser).toBe('2000:2000');
    expect(
      ok(placed({ workspace: '/home/u/proj' }, { defaults: { owner: { uid: 0, gid: 0 } } })).containerUser,
    ).toBeNull();
  });

  it(
    "--mount and the config's mounts, sources resolved to their real paths; an own mount replaces a config one at " +
      'the same path',
    () => {
      const config: Mount[] = [
        { source: '/srv/data', target: '/data', readOnly: true },
        { source: '/etc', target: '/cfg', readOnly: true },
      ];
      const got = ok(placed({ mounts: ['/home/u/proj/data-link:/data'] }, { defaults: { mounts: config } }));
      expect(got.mounts).toEqual([
        { source: '/etc', target: '/cfg', readOnly: true },
        { source: '/srv/data', target: '/data', readOnly: false },
      ]);
      expect(got.cwd).toBeNull();
    },
  );

  it.each<[string, Partial<AdmissionRequest>, 'invalid_argument' | 'forbidden', string]>([
    [
      'a missing source',
      { mounts: ['/nope:/x'] },
      'invalid_argument',
      'mounts[0] "/nope:/x": no such file or directory on the cluster\'s host: /nope',
    ],
    [
      "the host's root",
      { mounts: ['/:/host'] },
      'forbidden',
      'mounts[0] "/:/host" may never be mounted into a container: it is the host\'s root directory',
    ],
    [
      '/proc',
      { mounts: ['/proc:/p'] },
      'forbidden',
      'mounts[0] "/proc:/p" may never be mounted into a container: it lies in /proc',
    ],
    [
      'the state directory',
      { mounts: ['/home/u/.iris/run:/r'] },
      'forbidden',
      "it lies in the cluster's state directory /home/u/.iris",
    ],
    [
      'a link to the state directory',
      { mounts: ['/home/u/link-to-iris:/r'] },
      'forbidden',
      'mounts[0] "/home/u/link-to-iris:/r" (/home/u/link-to-iris is /home/u/.iris) may never be mounted into a ' +
        'container',
    ],
    [
      'a directory holding the state directory',
      { mounts: ['/home/u:/h'] },
      'forbidden',
      "it holds the cluster's state directory /home/u/.iris",
    ],
    [
      'a submit directory holding the state directory',
      { workspace: '/home/u' },
      'forbidden',
      "the submit directory /home/u may never be mounted into a container: it holds the cluster's state directory " +
        '/home/u/.iris',
    ],
    [
      'a missing submit directory',
      { workspace: '/gone' },
      'invalid_argument',
      "the submit directory /gone does not exist on the cluster's host",
    ],
    [
      'a submit directory its user cannot read',
      { workspace: '/root/proj' },
      'forbidden',
      "the submit directory /root/proj: the container's user 1000:1000 could not read it: /root is drwx------ of 0:0",
    ],
    [
      'two mounts at one path',
      { mounts: ['/etc:/x', '/srv/data:/x'] },
      'invalid_argument',
      'mounts[1] "/srv/data:/x": /x is mounted twice',
    ],
  ])('refuses %s', (_what, request, code, message) => {
    const error = refused(placed(request));
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(error.field).toMatch(/^(mounts\[\d\]|workspace)$/);
    expect(error.hint).toBeTruthy();
  });

  it("a root container may read anything; the owner's 65534 default may not read /root", () => {
    expect(ok(placed({ workspace: '/root/proj' }, { user: '0:0' })).cwd).toBe('/root/proj');
    expect(refused(placed({ workspace: '/root/proj' }, { defaults: { owner: { uid: 0, gid: 0 } } })).message).toContain(
      "the container's user 65534:65534 could not read it",
    );
  });
});

describe('a process job, and the kubernetes backend', () => {
  it("a process job starts in its cwd, else its submit directory, else the cluster's; --mount is refused", () => {
    expect(ok(placed({ workspace: '/home/u/proj' }, { image: null }))).toEqual({
      mounts: [],
      cwd: '/home/u/proj',
      containerUser: null,
    });
    expect(ok(placed({}, { image: null })).cwd).toBe('/home/u');
    const error = refused(placed({ mounts: ['/etc:/x'] }, { image: null }));
    expect(error.message).toBe(
      'mounts: a process task runs on the host and sees its files already; mounts are for containers',
    );
    expect(error.exitCode).toBe(2);
  });

  it('on kubernetes --mount is unsatisfiable (exit 5) and the submit directory is not mounted', () => {
    const error = refused(placed({ mounts: ['/etc:/x'] }, { defaults: { hostMounts: false } }));
    expect(error.message).toBe("mounts: this cluster's backend (kubernetes) does not mount host directories into Pods");
    expect(error.hint).toBe("leave --mount out: put the data in the image, or have the Pod's command fetch it");
    expect(error.exitCode).toBe(5);
    expect(error.code).toBe('unsatisfiable');
    expect(ok(placed({ workspace: '/home/u/proj' }, { defaults: { hostMounts: false } }))).toEqual({
      mounts: [],
      cwd: null,
      containerUser: null,
    });
    const kube = { defaults: { hostMounts: false, workspace: true } };
    expect(ok(placed({ workspace: '/home/u/proj', cwd: '/app' }, kube)).cwd).toBe('/app');
  });
});

describe("a task's child", () => {
  const PARENT_MOUNTS: Mount[] = [
    { source: '/home/u/proj', target: '/home/u/proj', readOnly: false },
    { source: '/srv/data', target: '/data', readOnly: true },
  ];
  const contained = (mounts: Mount[] = PARENT_MOUNTS): TaskCaller => ({
    ...BASE,
    isolation: {
      image: 'python:3.12',
      user: '1000:1000',
      network: 'bridge',
      privileged: false,
      mounts,
    } satisfies CallerIsolation,
  });

  it(
    "inherits its parent's mounts and starts in the task's directory when that is mounted, else in the " + "image's",
    () => {
      expect(ok(placed({ workspace: '/home/u/proj/sub' }, { caller: contained() }))).toEqual({
        mounts: PARENT_MOUNTS,
        cwd: '/home/u/proj/sub',
        containerUser: null,
      });
      expect(ok(placed({ workspace: '/tmp' }, { caller: contained() })).cwd).toBeNull();
    },
  );

  it("may mount what lies within its parent's mounts (read-only where the parent's is), at another path", () => {
    const got = ok(placed({ mounts: ['/srv/data/a:/a:ro', '/home/u/proj/sub:/home/u/proj'] }, { caller: contained() }));
    expect(got.mounts).toEqual([
      { source: '/srv/data', target: '/data', readOnly: true },
      { source: '/srv/data/a', target: '/a', readOnly: true },
      { source: '/home/u/proj/sub', target: '/home/u/proj', readOnly: false },
    ]);
  });

  it.each<[string, TaskCaller, string, string]>([
    [
      'a host path its parent does not have',
      contained(),
      '/etc:/etc',
      'a task may mount only what its own container has mounted, and /etc is not in its mounts (/home/u/proj, ' +
        '/srv/data)',
    ],
    [
      "a link out of its parent's mounts",
      contained(),
      '/home/u/proj/etc-link:/x',
      'a task may mount only what its own container has mounted, and /etc is not in its mounts',
    ],
    [
      'read-write what its parent has read-only',
      contained(),
      '/srv/data/a:/a',
      'a task may mount /srv/data/a only read-only: its own container has /srv/data read-only',
    ],
    [
      'anything, from a process task',
      BASE,
      '/home/u/proj:/w',
      'a task may mount only what its own container has mounted, and /home/u/proj is not in its mounts (it has none)',
    ],
  ])('refuses %s (forbidden, exit 4)', (_what, from, mount, message) => {
    const error = refused(placed({ mounts: [mount] }, { caller: from }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain(message);
    expect(error.field).toBe('mounts[0]');
  });

  it('from a process task, the submit directory is not mounted', () => {
    expect(ok(placed({ workspace: '/home/u/proj' }, { caller: BASE }))).toEqual({
      mounts: [],
      cwd: null,
      containerUser: null,
    });
  });

  it(
    'property: no request of a task gives its child a host path outside its own mounts, or write access to a ' +
      'read-only one',
    () => {
      const path = fc.constantFrom(
        '/home/u/proj',
        '/home/u/proj/sub',
        '/home/u/proj/up',
        '/home/u/proj/etc-link',
        '/home/u/proj/data-link',
        '/srv/data',
        '/srv/data/a',
        '/etc',
        '/',
        '/home/u',
        '/home/u/link-to-iris',
        '/proc',
      );
      const mount = fc
        .tuple(path, fc.constantFrom('/x', '/y', '/data', '/home/u/proj'), fc.constantFrom('', ':ro', ':rw'))
        .map(([src, dst, mode]) => `${src}:${dst}${mode}`);
      fc.assert(
        fc.property(
          fc.array(mount, { maxLength: 3 }),
          fc.option(path, { nil: undefined }),
          fc.boolean(),
          (mounts, workspace, mountWorkspace) => {
            const got = placed(
              { mounts, ...(workspace ? { workspace } : {}), mountWorkspace },
              { caller: contained() },
            );
            if (got instanceof IrisError) return;
            for (const m of got.mounts) {
              const cover = PARENT_MOUNTS.filter((p) => isWithinPath(m.source, p.source));
              expect(cover.length).toBeGreaterThan(0);
              if (!m.readOnly) expect(cover.some((p) => !p.readOnly)).toBe(true);
            }
          },
        ),
      );
    },
  );
});

describe('resolveJob stores what it decided', () => {
  it("mounts, cwd and the owner's user land in the spec", () => {
    const names = { isNameTaken: () => false, generateName: () => 'gen-1', hostPaths: HOST };
    const { spec } = resolveJob(
      { command: ['true'], image: 'python:3.12', workspace: '/home/u/proj' },
      null,
      names,
      DEFAULTS,
    );
    expect(spec).toMatchObject({
      image: 'python:3.12',
      cwd: '/home/u/proj',
      containerUser: '1000:1000',
      mounts: [{ source: '/home/u/proj', target: '/home/u/proj', readOnly: false }],
    });
    const plain = resolveJob({ command: ['true'], workspace: '/home/u/proj' }, null, names, DEFAULTS).spec;
    expect(plain.mounts).toBeUndefined();
    expect(plain.cwd).toBe('/home/u/proj');
  });
});

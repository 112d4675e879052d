/**
 * What a task may ask for its children (src/cluster/admission/isolation.ts), as a table: the child
 * of a container task inherits the task's image, user and network and can never lower them; a
 * process child needs the owner's config key; the owner and process tasks keep their choices.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jobIsolation, type JobIsolation } from '../../../src/cluster/admission/isolation.js';
import { resolveJob, type AdmissionDefaults, type AdmissionRequest } from '../../../src/cluster/admission/index.js';
import type { CallerIsolation, TaskCaller } from '../../../src/model/caller.js';
import { hasRootIdentity } from '../../../src/model/image.js';
import { IrisError } from '../../../src/model/errors.js';

const DEFAULTS: AdmissionDefaults = {
  user: 'bob',
  cwd: '/home/bob',
  timeLimitMs: null,
  maxPreemptions: 100,
  image: null,
};
const BASE: TaskCaller = { task: '/p/task-0', job: '/p', attempt: 0, user: 'bob', env: {}, rootSubmittedAt: 1 };

/** A task in a container of iris-test/node, as the default container user, on bridge. */
const CONTAINED: CallerIsolation = {
  image: 'iris-test/node',
  user: '65534:65534',
  network: 'bridge',
  privileged: false,
};
const PROCESS: CallerIsolation = { image: null, user: null, network: null, privileged: false };

function caller(isolation: CallerIsolation | undefined): TaskCaller {
  return isolation ? { ...BASE, isolation } : BASE;
}

type Outcome = Partial<JobIsolation> | { refused: 'forbidden' | 'invalid_argument'; message: RegExp };

function outcome(
  request: Partial<AdmissionRequest>,
  from: TaskCaller | null,
  defaults: Partial<AdmissionDefaults> = {},
): JobIsolation | IrisError {
  try {
    return jobIsolation({ command: ['true'], ...request }, from, { ...DEFAULTS, ...defaults });
  } catch (error) {
    if (error instanceof IrisError) return error;
    throw error;
  }
}

function check(got: JobIsolation | IrisError, want: Outcome): void {
  if ('refused' in want) {
    expect(got).toBeInstanceOf(IrisError);
    expect((got as IrisError).code).toBe(want.refused);
    expect((got as IrisError).message).toMatch(want.message);
  } else {
    if (got instanceof IrisError) throw new Error(`refused: ${got.message}`);
    expect(got).toMatchObject(want);
  }
}

describe('a child of a container task', () => {
  const from = caller(CONTAINED);
  it.each<[string, Partial<AdmissionRequest>, Partial<AdmissionDefaults>, Outcome]>([
    [
      "asking for nothing: the parent's image, user and network",
      {},
      {},
      { image: 'iris-test/node', containerUser: '65534:65534', network: 'bridge', unprivileged: true },
    ],
    [
      "asking for nothing, with runtime: docker and another default image: still the parent's image",
      {},
      { image: 'python:3.12' },
      { image: 'iris-test/node' },
    ],
    [
      "naming another image: that image, the parent's user and network",
      { image: 'iris-test/busybox' },
      {},
      { image: 'iris-test/busybox', containerUser: '65534:65534', network: 'bridge' },
    ],
    ["--runtime docker without an image: the parent's image", { runtime: 'docker' }, {}, { image: 'iris-test/node' }],
    ['another numeric user', { userInContainer: '1000:1000' }, {}, { containerUser: '1000:1000' }],
    [
      'a root user',
      { userInContainer: '0' },
      {},
      { refused: 'forbidden', message: /^userInContainer "0": a task may not start root containers/ },
    ],
    [
      'the root name',
      { userInContainer: 'root' },
      {},
      { refused: 'forbidden', message: /may not start root containers/ },
    ],
    [
      'uid 0 written 00',
      { userInContainer: '00' },
      {},
      { refused: 'forbidden', message: /may not start root containers/ },
    ],
    [
      'the root group',
      { userInContainer: '1000:0' },
      {},
      { refused: 'forbidden', message: /may not start root containers/ },
    ],
    [
      'a named user (it may mean root in the image)',
      { userInContainer: 'daemon' },
      {},
      { refused: 'forbidden', message: /only as UID\[:GID\]/ },
    ],
    [
      'the host network',
      { network: 'host' },
      {},
      { refused: 'forbidden', message: /^network "host": a task may not give its children the host network/ },
    ],
    ['the bridge network', { network: 'bridge' }, {}, { network: 'bridge' }],
    [
      'a process (config key off)',
      { runtime: 'process' },
      {},
      { refused: 'forbidden', message: /^runtime "process": a task in a container may not start host processes/ },
    ],
    ['a process (config key on)', { runtime: 'process' }, { containerProcessChildren: true }, { image: null }],
    [
      'a process and an image',
      { runtime: 'process', image: 'iris-test/busybox' },
      { containerProcessChildren: true },
      { refused: 'invalid_argument', message: /a process runs no image/ },
    ],
  ])('%s', (_what, request, defaults, want) => {
    check(outcome(request, from, defaults), want);
  });

  it("a TPU child of a bridge task stays on bridge (its parent's network, as launched)", () => {
    const names = { isNameTaken: () => false, generateName: () => 'k' };
    const job = resolveJob({ command: ['true'], tpu: 'v4-8' }, from, names, DEFAULTS).spec;
    expect(job).toMatchObject({
      image: 'iris-test/node',
      network: 'bridge',
      containerUser: '65534:65534',
      unprivileged: true,
    });
  });

  it('a parent that runs as root (the owner gave it) may pass root on, and a host-network parent its network', () => {
    const rooted = caller({ ...CONTAINED, user: '0:0', network: 'host' });
    check(outcome({}, rooted), { containerUser: '0:0', network: 'host' });
    check(outcome({ userInContainer: '0:0', network: 'host' }, rooted), { containerUser: '0:0', network: 'host' });
    check(outcome({ userInContainer: '0' }, rooted), { refused: 'forbidden', message: /root containers/ });
  });

  it('a named parent user is not carried into another image (the name could mean root there)', () => {
    const named = caller({ ...CONTAINED, user: 'nobody' });
    check(outcome({}, named), { image: 'iris-test/node', containerUser: 'nobody' });
    check(outcome({ image: 'iris-test/busybox' }, named), {
      refused: 'forbidden',
      message: /container user "nobody" is a name/,
    });
    check(outcome({ image: 'iris-test/busybox', userInContainer: '65534:65534' }, named), {
      image: 'iris-test/busybox',
      containerUser: '65534:65534',
    });
  });

  it(
    "a privileged parent's child may run privileged where its worker allows it; an unprivileged parent's " + 'never',
    () => {
      check(outcome({}, caller({ ...CONTAINED, privileged: true })), { unprivileged: false });
      check(outcome({}, from), { unprivileged: true });
    },
  );

  it('no request a container task can make gives its child root, the host network or the host', () => {
    const users = fc.constantFrom(
      undefined,
      '0',
      '00',
      'root',
      '0:0',
      '1000:0',
      'root:1000',
      '1000',
      '1000:1000',
      'daemon',
      'nobody:x',
    );
    const networks = fc.constantFrom(undefined, 'bridge', 'host');
    const runtimes = fc.constantFrom(undefined, 'process', 'docker');
    const images = fc.constantFrom(undefined, 'iris-test/busybox', 'iris-test/node');
    fc.assert(
      fc.property(
        users,
        networks,
        runtimes,
        images,
        fc.boolean(),
        (userInContainer, network, runtime, image, withDefault) => {
          const got = outcome(
            { userInContainer, network, runtime, image },
            from,
            withDefault ? { image: 'python:3.12' } : {},
          );
          if (got instanceof IrisError) return;
          expect(got.image).not.toBeNull();
          expect(got.network).toBe('bridge');
          expect(got.unprivileged).toBe(true);
          expect(got.containerUser !== null && hasRootIdentity(got.containerUser)).toBe(false);
        },
      ),
    );
  });
});

describe('a child of a process task, and the owner', () => {
  const BOX = 'iris-test/busybox';
  it.each<[string, TaskCaller | null, Partial<AdmissionRequest>, Partial<AdmissionDefaults>, Outcome]>([
    [
      "a process task's child asking for nothing runs as a process",
      caller(PROCESS),
      {},
      {},
      { image: null, unprivileged: false },
    ],
    [
      "a process task's child gets the default image with runtime: docker",
      caller(undefined),
      {},
      { image: 'python:3.12' },
      { image: 'python:3.12' },
    ],
    [
      "a process task's child may ask for a process under runtime: docker",
      caller(PROCESS),
      { runtime: 'process' },
      { image: 'python:3.12' },
      { image: null },
    ],
    [
      "a process task's child may name a user by name",
      caller(PROCESS),
      { image: BOX, userInContainer: 'daemon' },
      {},
      { containerUser: 'daemon' },
    ],
    [
      "a process task's child may not ask for root",
      caller(PROCESS),
      { image: BOX, userInContainer: '0' },
      {},
      { refused: 'forbidden', message: /root containers/ },
    ],
    [
      "a process task's child may not ask for the host network",
      caller(PROCESS),
      { image: BOX, network: 'host' },
      {},
      { refused: 'forbidden', message: /host network/ },
    ],
    [
      'the owner may ask for root and host',
      null,
      { image: BOX, userInContainer: '0', network: 'host' },
      {},
      { containerUser: '0', network: 'host', unprivileged: false },
    ],
    [
      'the owner may run a process under runtime: docker',
      null,
      { runtime: 'process' },
      { image: 'python:3.12' },
      { image: null },
    ],
    [
      "the owner's --runtime docker needs an image",
      null,
      { runtime: 'docker' },
      {},
      { refused: 'invalid_argument', message: /^runtime "docker": no image to run/ },
    ],
    [
      'an unknown runtime is invalid',
      null,
      { runtime: 'vm' },
      {},
      { refused: 'invalid_argument', message: /^runtime: invalid runtime "vm"/ },
    ],
  ])('%s', (_what, from, request, defaults, want) => {
    check(outcome(request, from, defaults), want);
  });
});

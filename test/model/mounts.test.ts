import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forbiddenSource, formatMount, isWithinPath, parseMount, targetProblem } from '../../src/model/mounts.js';
import { IrisError } from '../../src/model/errors.js';

const FORBIDDEN = { stateDirs: ['/home/u/.iris'], engineSockets: ['/var/run/docker.sock', '/run/docker.sock'] };

function refusal(run: () => unknown): IrisError {
  try {
    run();
  } catch (error) {
    if (error instanceof IrisError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseMount', () => {
  it('reads SRC:DST, SRC:DST:ro and SRC:DST:rw, normalising both paths', () => {
    expect(parseMount('/data:/data', 'mounts[0]')).toEqual({ source: '/data', target: '/data', readOnly: false });
    expect(parseMount('/srv/x/../imagenet:/in/:ro', 'mounts[0]')).toEqual({
      source: '/srv/imagenet',
      target: '/in',
      readOnly: true,
    });
    expect(parseMount('/a:/b:rw', 'mounts[0]')).toMatchObject({ readOnly: false });
    expect(formatMount({ source: '/a', target: '/b', readOnly: true })).toBe('/a:/b:ro');
  });

  it.each([
    ['data:/data', 'mounts[1] "data:/data": the host path "data" is not absolute'],
    ['~/x:/x', 'mounts[1] "~/x:/x": the host path "~/x" is not absolute'],
    ['/data:data', 'mounts[1] "/data:data": the path in the container "data" is not absolute'],
    ['/data', 'mounts[1] "/data": expected SRC:DST'],
    ['/a:b:/c', 'mounts[1] "/a:b:/c": expected SRC:DST[:ro]; a path may not contain ":"'],
    ['/data:/', 'mounts[1] "/data:/": a mount cannot cover the container\'s whole file system (/)'],
    ['/data:/proc/x', 'mounts[1] "/data:/proc/x": "/proc/x" lies in /proc, which the container\'s runtime provides'],
    [
      '/data:/.iris-task',
      'mounts[1] "/data:/.iris-task": "/.iris-task" lies in /.iris-task, which the container\'s runtime provides',
    ],
  ])('refuses %j as a usage error naming the field', (text, message) => {
    const error = refusal(() => parseMount(text, 'mounts[1]'));
    expect(error.message).toBe(message);
    expect(error.exitCode).toBe(2);
    expect(error.field).toBe('mounts[1]');
  });

  it("targetProblem: only absolute paths outside the runtime's own", () => {
    expect(targetProblem('/work')).toBeNull();
    expect(targetProblem('/devices')).toBeNull();
    expect(targetProblem('/dev')).toMatch(/lies in \/dev/);
  });
});

describe('forbiddenSource', () => {
  it.each([
    ['/', /host's root directory/],
    ['/proc', /lies in \/proc/],
    ['/proc/1/root', /lies in \/proc/],
    ['/sys/fs/cgroup', /lies in \/sys/],
    ['/dev', /lies in \/dev/],
    ['/home/u/.iris', /lies in the cluster's state directory \/home\/u\/.iris/],
    ['/home/u/.iris/run', /lies in the cluster's state directory/],
    ['/home/u', /holds the cluster's state directory \/home\/u\/.iris/],
    ['/home', /holds the cluster's state directory/],
    ['/var/run/docker.sock', /is the container engine's socket/],
    ['/var/run', /holds the container engine's socket \/var\/run\/docker.sock/],
    ['/run', /holds the container engine's socket \/run\/docker.sock/],
  ])('%s is never mounted', (path, why) => {
    expect(forbiddenSource(path, FORBIDDEN)).toMatch(why);
  });

  it.each(['/home/u/proj', '/home/u/.irisx', '/data', '/var/lib/data', '/devices', '/tmp/x'])(
    '%s may be mounted',
    (path) => {
      expect(forbiddenSource(path, FORBIDDEN)).toBeNull();
    },
  );

  it(
    'property: a path is refused exactly when it is /, lies in a kernel dir or the state dir, or holds the state ' +
      'dir or a socket',
    () => {
      const part = fc.constantFrom(
        'home',
        'u',
        '.iris',
        'run',
        'var',
        'proc',
        'sys',
        'dev',
        'data',
        'docker.sock',
        'x',
      );
      fc.assert(
        fc.property(fc.array(part, { maxLength: 5 }), (parts) => {
          const path = `/${parts.join('/')}`;
          const expected =
            path === '/' ||
            ['/proc', '/sys', '/dev', '/home/u/.iris'].some((dir) => isWithinPath(path, dir)) ||
            ['/home/u/.iris', '/var/run/docker.sock', '/run/docker.sock'].some((inner) => isWithinPath(inner, path));
          expect(forbiddenSource(path, FORBIDDEN) !== null).toBe(expected);
        }),
      );
    },
  );
});

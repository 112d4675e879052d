/**
 * Docker image references, checked before anything reaches an engine: `busybox`,
 * `iris-test/node:24`, `host:5000/team/img@sha256:...`; and the other per-container choices a
 * job or the config makes: the user a container runs as and its network.
 */
import { invalid } from './errors.js';

const IMAGE_PATTERN = /^[a-z0-9][a-z0-9._\-/]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Check a Docker image reference; returns it unchanged or throws a clear IrisError. */
export function checkImageReference(image: string): string {
  const host = image.includes('/') ? image.slice(0, image.indexOf('/')) : '';
  // A registry host may carry a port (`host:5000/img`); check the rest of the reference.
  const rest = /[.:]/.test(host) ? image.slice(host.length + 1) : image;
  if (image.length > 255 || !IMAGE_PATTERN.test(rest)) {
    throw invalid(
      `invalid image reference ${JSON.stringify(image)}`,
      'use NAME[:TAG] in lower case, e.g. python:3.12 or iris-test/busybox',
    );
  }
  return image;
}

/** Whether `image` passes checkImageReference. */
export function isImageReference(image: string): boolean {
  try {
    checkImageReference(image);
    return true;
  } catch {
    return false;
  }
}

/** Networks a container may join: its own network namespace on the engine's bridge, or the host's. */
export const CONTAINER_NETWORKS = ['bridge', 'host'] as const;
export type ContainerNetwork = (typeof CONTAINER_NETWORKS)[number];

/** How a job's tasks run: host processes, or containers on the Docker engine (`--runtime`). */
export const JOB_RUNTIMES = ['process', 'docker'] as const;
export type JobRuntime = (typeof JOB_RUNTIMES)[number];

/** Check a job runtime name. */
export function checkJobRuntime(runtime: string): JobRuntime {
  const value = runtime.trim();
  if (!(JOB_RUNTIMES as readonly string[]).includes(value)) {
    throw invalid(`invalid runtime ${JSON.stringify(runtime)}`, `use one of ${JOB_RUNTIMES.join(', ')}`);
  }
  return value as JobRuntime;
}

/** The user a container runs as when neither the job nor the config names one: nobody/nogroup. */
export const DEFAULT_CONTAINER_USER = '65534:65534';

const CONTAINER_USER_PART = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}$/;

/** Check a container user (`UID[:GID]` or `NAME[:GROUP]`, as Docker's `--user`); returns it trimmed. */
export function checkContainerUser(user: string): string {
  const value = user.trim();
  const parts = value.split(':');
  if (parts.length > 2 || !parts.every((part) => CONTAINER_USER_PART.test(part))) {
    throw invalid(
      `invalid container user ${JSON.stringify(user)}`,
      `use UID[:GID] or NAME[:GROUP] as the image knows them, e.g. 1000:1000 (default ${DEFAULT_CONTAINER_USER}` +
        `, nobody)`,
    );
  }
  return value;
}

/** Check a container network name. */
export function checkContainerNetwork(network: string): ContainerNetwork {
  const value = network.trim();
  if (!(CONTAINER_NETWORKS as readonly string[]).includes(value)) {
    throw invalid(`invalid network ${JSON.stringify(network)}`, `use one of ${CONTAINER_NETWORKS.join(', ')}`);
  }
  return value as ContainerNetwork;
}

/** True for a numeric container user, `UID` or `UID:GID`: it means the same in every image. */
export function isNumericContainerUser(user: string): boolean {
  return /^\d+(:\d+)?$/.test(user.trim());
}

/**
 * True when a container user or its group is root: uid or gid 0 (`0`, `00`: the engine reads the
 * number), or the name `root` in either place.
 */
export function hasRootIdentity(user: string): boolean {
  return user
    .trim()
    .split(':')
    .some((part) => part === 'root' || /^0+$/.test(part));
}

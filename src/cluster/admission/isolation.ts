/**
 * What a job runs in — a host process or a container of an image, as which container user, on
 * which network, privileged or not — and what a task may ask for its children
 * (docs/security.md, "A container task's children stay contained"). Pure.
 *
 * The owner (no caller) gets what it asks for: its `--image`, else (unless `--runtime process`)
 * the cluster's default image; its `--user-in-container` and `--network`, else the defaults
 * applied at launch.
 *
 * A child inherits its parent's isolation and can never lower it:
 * - A child of a CONTAINER task runs in a container: its own `--image`, else the parent's image
 *   (never the cluster's process runtime, whatever `runtime:` says). `--runtime process` is
 *   refused (forbidden) unless the owner's config allows it (`container-process-children: true`,
 *   AdmissionDefaults.containerProcessChildren).
 * - Its container user is its own `--user-in-container`, else the parent's as launched. From a
 *   container task the user must be numeric (`UID[:GID]`: a name can mean root in another image's
 *   /etc/passwd), and a child that names another image than its parent's may not inherit a named
 *   user either. No child of any task may name a root user or group (uid or gid 0, `root`) unless
 *   its parent has exactly that user.
 * - Its network is its own `--network`, else the parent's (as launched, for a container task:
 *   so a TPU child of a `bridge` task stays on `bridge`); `host` only when the parent has it.
 * - A child of an unprivileged container task is `unprivileged`: it never runs privileged, even
 *   on a worker with `privileged: true`.
 * - Devices and capabilities: no request field adds any. A child's devices are those the
 *   scheduler assigns to its own request; its capabilities are the fixed set every container gets
 *   (src/cluster/controller/launch.ts, src/runtime/docker/create-options.ts). Its host mounts are
 *   its parent's, plus only what lies within them (./workspace.ts).
 * A child of a PROCESS task (which runs as the owner's uid anyway) may run as a process or in any
 * image; its container choices inherit its parent job's and have the same root/host ceiling.
 */
import type { IrisError } from '../../model/errors.js';
import { hasRootIdentity, isNumericContainerUser, type ContainerNetwork } from '../../model/image.js';
import type { CallerIsolation, TaskCaller } from '../../model/caller.js';
import type { AdmissionDefaults, AdmissionRequest } from './types.js';
import * as values from './values.js';

/** What a job runs in; the JobSpec fields of the same names. */
export interface JobIsolation {
  image: string | null;
  containerUser: string | null;
  network: ContainerNetwork | null;
  /** true: never privileged (a child of an unprivileged container task). */
  unprivileged: boolean;
}

const PROCESS_PARENT: CallerIsolation = { image: null, user: null, network: null, privileged: false };

/** A refusal about request field `field` (so the CLI names its flag: values.fieldError). */
function forbidden(field: string, message: string, hint: string): IrisError {
  return values.fieldError(field, message, hint, 'forbidden');
}

/** The image: null for a process. */
function image(request: AdmissionRequest, parent: CallerIsolation | null, defaults: AdmissionDefaults): string | null {
  const own = values.image(request.image);
  const runtime = values.runtime(request.runtime);
  const contained = parent !== null && parent.image !== null;
  if (runtime === 'process') {
    if (own !== null) {
      throw values.fieldError(
        'runtime',
        `runtime "process" with image "${own}": a process runs no image`,
        'give --image or --runtime process, not both',
      );
    }
    if (contained && defaults.containerProcessChildren !== true) {
      throw forbidden(
        'runtime',
        'runtime "process": a task in a container may not start host processes (its children run in containers)',
        "leave --runtime out (the child runs in this task's image) or give --image; " +
          "the cluster's owner may allow it with container-process-children: true in the config",
      );
    }
    return null;
  }
  const chosen = own ?? (contained ? parent.image : defaults.image);
  if (runtime === 'docker' && chosen === null) {
    throw values.fieldError(
      'runtime',
      'runtime "docker": no image to run',
      'give --image IMAGE, or set runtime: docker and image: in the cluster config',
    );
  }
  return chosen;
}

/** The container user: the request's, else the parent's; checked against the parent's. */
function containerUser(request: AdmissionRequest, parent: CallerIsolation | null, image: string | null): string | null {
  const own = values.containerUser(request.userInContainer);
  if (parent === null) return own;
  const contained = parent.image !== null;
  if (own !== null && own !== parent.user) {
    if (hasRootIdentity(own)) {
      throw forbidden(
        'userInContainer',
        `userInContainer "${own}": a task may not start root containers`,
        "leave --user-in-container out (children run as their parent's container user), or have the owner submit " +
          'the job',
      );
    }
    if (contained && !isNumericContainerUser(own)) {
      throw forbidden(
        'userInContainer',
        `userInContainer "${own}": a task in a container may name its children's container user only as UID[:GID]`,
        'give a numeric user such as 1000:1000 (a name could mean root in the image), or leave --user-in-container out',
      );
    }
  }
  const user = own ?? parent.user;
  if (contained && user !== null && image !== null && image !== parent.image && !isNumericContainerUser(user)) {
    throw forbidden(
      'image',
      `image "${image}": this task's container user "${user}" is a name, which another image may map to root`,
      "give --user-in-container UID:GID with the other image, or leave --image out (the child runs in this task's " +
        'image)',
    );
  }
  return user;
}

function network(request: AdmissionRequest, parent: CallerIsolation | null): ContainerNetwork | null {
  const own = values.network(request.network);
  if (parent === null) return own;
  if (own === 'host' && parent.network !== 'host') {
    throw forbidden(
      'network',
      'network "host": a task may not give its children the host network unless its own job was given it',
      'leave --network out, or have the owner submit the job with --network host',
    );
  }
  return own ?? parent.network;
}

/** What the job runs in, after the rules above; throws invalid_argument or forbidden with the reason. */
export function jobIsolation(
  request: AdmissionRequest,
  caller: TaskCaller | null,
  defaults: AdmissionDefaults,
): JobIsolation {
  const parent = caller ? (caller.isolation ?? PROCESS_PARENT) : null;
  const chosen = image(request, parent, defaults);
  return {
    image: chosen,
    containerUser: containerUser(request, parent, chosen),
    network: network(request, parent),
    unprivileged: parent !== null && parent.image !== null && !parent.privileged,
  };
}

/**
 * What a job sees of the host: its working directory and, for a container, the host directories
 * mounted into it (docs/security.md, "Mounts: what a container may see of the host"; the mount
 * rules themselves are src/model/mounts.ts). Pure: host paths are resolved through the
 * ClusterView (`hostPath`, `unreadable`), never read here.
 *
 * - A process job starts in its `cwd`, else the directory it was submitted from (`workspace`),
 *   else the cluster's; it gets no mounts (`mounts` is refused: it sees the host already).
 * - A container job of the owner (no task caller) gets the config's default mounts, its own
 *   `mounts`, and the submit directory (`workspace`) at the same path, read-write, unless
 *   `mountWorkspace: false` or the config's `workspace: false`. Its working directory is its
 *   `cwd`, else the mounted submit directory, else the image's own. Every source is resolved to
 *   its real path and refused when it is missing or forbidden (model/mounts.ts forbiddenSource).
 *   With a host directory mounted and no container user asked for, it runs as the owner's
 *   uid:gid when the owner is not root (so what it writes there is the owner's), else as the
 *   config's `container-user`. A mount its container user could not read is refused at submit.
 * - A child of a task inherits its parent's mounts (a container task's, as launched; a process
 *   task has none) and may add only what lies within one of them, never read-write where the
 *   parent has it read-only: no task gives its child a host path its own container lacks. The
 *   submit directory of a task is never mounted anew; the child starts in its `cwd`, else in
 *   the task's directory when that lies in one of its mounts, else in its image's own.
 * - On a backend without host mounts (kubernetes), `mounts` is refused (unsatisfiable) and the
 *   submit directory is not mounted.
 */
import { describeValue } from '../../model/errors.js';
import { DEFAULT_CONTAINER_USER } from '../../model/image.js';
import { forbiddenSource, formatMount, isWithinPath, parseMount, type Mount } from '../../model/mounts.js';
import type { TaskCaller } from '../../model/caller.js';
import type { AdmissionDefaults, AdmissionRequest, HostPaths } from './types.js';
import * as values from './values.js';

/** What admission decides about the host paths of a job: the JobSpec fields of the same names. */
export interface JobWorkspace {
  mounts: Mount[];
  cwd: string | null;
  /** The container user after this rule (the owner's uid:gid with a mount), or the one given. */
  containerUser: string | null;
}

/** A requested mount, the request field it came from (`mounts[1]`, `workspace`, `config`) and how messages name it. */
interface Asked extends Mount {
  field: string;
  subject: string;
}

const WORKSPACE_HINT =
  "submit from a project directory, or give --no-workspace (the container then starts in its image's own directory)";

function hintFor(asked: Asked): string {
  if (asked.field === 'workspace') return WORKSPACE_HINT;
  return asked.field === 'config'
    ? 'fix `mounts` in the cluster config'
    : 'mount another directory, or leave this --mount out';
}

/** A job whose tasks take no mounts (why: `message`, what to do: `hint`): a request that asks for some is refused. */
function refuseMounts(own: readonly Asked[], message: string, hint: string, code?: 'unsatisfiable'): void {
  if (own.length > 0) throw values.fieldError('mounts', message, hint, code);
}

/** The mounts the request asks for, parsed and checked for a shared container path. */
function requested(request: AdmissionRequest): Asked[] {
  const out: Asked[] = [];
  (request.mounts ?? []).forEach((text, i) => {
    const field = `mounts[${i}]`;
    const mount = parseMount(text, field);
    if (out.some((m) => m.target === mount.target)) {
      throw values.fieldError(
        field,
        `${field} ${describeValue(text)}: ${mount.target} is mounted twice`,
        'give each path in the container one mount',
      );
    }
    out.push({ ...mount, field, subject: `${field} ${describeValue(text)}` });
  });
  return out;
}

/** `asked` with its source replaced by its real path; refused when missing or forbidden. */
function resolved(asked: Asked, host: HostPaths, defaults: AdmissionDefaults): Asked {
  const found = host.hostPath(asked.source);
  if (found === null) {
    const message =
      asked.field === 'workspace'
        ? `${asked.subject} does not exist on the cluster's host`
        : `${asked.subject}: no such file or directory on the cluster's host: ${asked.source}`;
    throw values.fieldError(asked.field, message, hintFor(asked));
  }
  const problem = forbiddenSource(found, defaults.forbiddenHostPaths ?? { stateDirs: [], engineSockets: [] });
  if (problem) {
    const real = found === asked.source ? '' : ` (${asked.source} is ${found})`;
    throw values.fieldError(
      asked.field,
      `${asked.subject}${real} may never be mounted into a container: ${problem}`,
      hintFor(asked),
      'forbidden',
    );
  }
  return { ...asked, source: found };
}

const plain = ({ source, target, readOnly }: Mount): Mount => ({ source, target, readOnly });

/** The uid and gid of a container user, as far as they are known on the host (null: a name). */
function numericUser(user: string): { uid: number; gid: number | null } | null {
  if (user === 'root' || user.startsWith('root:')) return { uid: 0, gid: 0 };
  const m = /^(\d+)(?::(\d+))?$/.exec(user);
  return m ? { uid: Number(m[1]), gid: m[2] === undefined ? null : Number(m[2]) } : null;
}

/** The working directory and mounts of a job that runs in `image` (null: a process) as `containerUser`. */
export function jobWorkspace(
  request: AdmissionRequest,
  caller: TaskCaller | null,
  defaults: AdmissionDefaults,
  host: HostPaths | undefined,
  chosen: { image: string | null; containerUser: string | null },
): JobWorkspace {
  const own = requested(request);
  const cwd = values.cwd(request.cwd, null);
  const workspace = values.cwd(request.workspace, null, 'workspace');
  if (chosen.image === null) {
    refuseMounts(
      own,
      'mounts: a process task runs on the host and sees its files already; mounts are for containers',
      'give --image to run the job in a container, or leave --mount out',
    );
    return { mounts: [], cwd: cwd ?? workspace ?? defaults.cwd, containerUser: chosen.containerUser };
  }
  if (defaults.hostMounts === false) {
    refuseMounts(
      own,
      "mounts: this cluster's backend (kubernetes) does not mount host directories into Pods",
      "leave --mount out: put the data in the image, or have the Pod's command fetch it",
      'unsatisfiable',
    );
    return { mounts: [], cwd, containerUser: chosen.containerUser };
  }
  if (caller) return childWorkspace(own, caller, defaults, host, cwd, workspace, chosen.containerUser);

  const asked: Asked[] = (defaults.mounts ?? []).map((m) => ({
    ...m,
    field: 'config',
    subject: `the config's mount ${describeValue(formatMount(m))}`,
  }));
  for (const mount of own) {
    const same = asked.findIndex((m) => m.target === mount.target);
    if (same >= 0) asked.splice(same, 1);
    asked.push(mount);
  }
  const mountWorkspace = request.mountWorkspace ?? defaults.workspace ?? true;
  const workspaceMounted =
    workspace !== null && mountWorkspace && host !== undefined && !asked.some((m) => m.target === workspace);
  if (workspaceMounted) {
    asked.push({
      source: workspace,
      target: workspace,
      readOnly: false,
      field: 'workspace',
      subject: `the submit directory ${workspace}`,
    });
  }
  if (asked.length > 0 && !host) throw new Error("admission: mounts need the ClusterView's hostPaths");
  const mounts = asked.map((m) => resolved(m, host!, defaults));

  const owner = defaults.owner;
  const containerUser =
    chosen.containerUser ?? (mounts.length > 0 && owner && owner.uid !== 0 ? `${owner.uid}:${owner.gid}` : null);
  const user = containerUser ?? defaults.containerUser ?? DEFAULT_CONTAINER_USER;
  const ids = numericUser(user);
  if (ids !== null && host?.unreadable) {
    for (const mount of mounts) {
      const blocked = host.unreadable(mount.source, ids.uid, ids.gid);
      if (blocked === null) continue;
      const fix = mount.field === 'workspace' ? WORKSPACE_HINT : 'mount a directory that user can read';
      throw values.fieldError(
        mount.field,
        `${mount.subject}: the container's user ${user} could not read it: ${blocked}`,
        `give --user-in-container UID:GID of a user who can read it, or make it readable to that user; or ${fix}`,
        'forbidden',
      );
    }
  }
  return {
    mounts: mounts.map(plain),
    cwd: cwd ?? (workspaceMounted ? workspace : null),
    containerUser,
  };
}

/**
 * A task's child: its parent's mounts, plus its own ones that lie within one of them (read-only
 * where the parent's is); an own mount replaces an inherited one at the same container path.
 */
function childWorkspace(
  own: Asked[],
  caller: TaskCaller,
  defaults: AdmissionDefaults,
  host: HostPaths | undefined,
  cwd: string | null,
  workspace: string | null,
  containerUser: string | null,
): JobWorkspace {
  const parent = caller.isolation?.mounts ?? [];
  if (own.length > 0 && !host) throw new Error("admission: mounts need the ClusterView's hostPaths");
  const added = own.map((asked) => {
    const mount = resolved(asked, host!, defaults);
    const within = parent.filter((p) => isWithinPath(mount.source, p.source));
    if (within.some((p) => !p.readOnly || mount.readOnly)) return plain(mount);
    const why =
      within.length > 0
        ? `a task may mount ${mount.source} only read-only: its own container has ${within[0]!.source} read-only`
        : `a task may mount only what its own container has mounted, and ${mount.source} is not in its mounts` +
          (parent.length > 0 ? ` (${parent.map((p) => p.source).join(', ')})` : ' (it has none)');
    throw values.fieldError(
      asked.field,
      `${asked.subject}: ${why}`,
      within.length > 0
        ? 'add :ro to the mount'
        : "leave --mount out (a child inherits its parent's mounts), or have the cluster's owner submit the job " +
            'with --mount',
      'forbidden',
    );
  });
  const mounts = [...parent.filter((p) => !added.some((m) => m.target === p.target)).map(plain), ...added];
  const inMount = workspace !== null && mounts.some((m) => isWithinPath(workspace, m.target));
  return { mounts, cwd: cwd ?? (inMount ? workspace : null), containerUser };
}

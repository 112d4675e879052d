/**
 * What admission takes from the resolved config (cluster/admission/types.ts AdmissionDefaults): the
 * one place the running cluster (daemon.ts) and the check before a cluster starts (preflight.ts)
 * build it, so both refuse the same submissions.
 */
import path from 'node:path';
import type { AdmissionDefaults } from '../cluster/admission/index.js';
import { defaultImage } from '../cluster/controller/launch.js';
import type { IrisConfig } from '../config/index.js';
import { queueCatalog } from '../config/schema/queues.js';
import { forbiddenHostPaths } from './host-paths.js';

/** The file a config of this cluster is in: the one loaded, else a new `.irisrc.yaml` in `cwd` (config/find.ts). */
export function configPlace(config: Pick<IrisConfig, 'source'>, cwd: string): string {
  return config.source ?? `a new ${path.join(cwd, '.irisrc.yaml')}`;
}

/**
 * The defaults of a cluster with `config` and state directory `home`, started in `cwd`; `kube`:
 * the kubernetes backend (it mounts no host path).
 */
export function admissionDefaults(
  config: IrisConfig,
  home: string,
  options: { cwd: string; kube: boolean },
): Omit<AdmissionDefaults, 'user' | 'cwd'> {
  return {
    timeLimitMs: config.defaults.timeLimitMs,
    maxPreemptions: config.defaults.maxPreemptions,
    retryBackoffMs: config.defaults.retryBackoffMs,
    image: defaultImage(config.runtime),
    containerProcessChildren: config.runtime.containerProcessChildren,
    workspace: config.runtime.workspace,
    mounts: config.runtime.mounts,
    ...(options.kube ? { hostMounts: false } : {}),
    owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    containerUser: config.runtime.containerUser,
    forbiddenHostPaths: forbiddenHostPaths(home),
    productionUsers: config.productionUsers,
    queues: queueCatalog(config.queues),
    // Kubernetes Nodes are not declared in the config: no file to point at.
    ...(options.kube ? {} : { configPlace: configPlace(config, options.cwd) }),
  };
}

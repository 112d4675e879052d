/**
 * `backend:` where the cluster's tasks run (docs/configuration.md, "Backend"). Absent, `{ kind:
 * local }` or a block without `kind`: the configured local workers (processes or Docker).
 * `{ kind: kubernetes }`: the workers are a Kubernetes cluster's Nodes and every attempt is a Pod
 * iris binds itself (docs/kubernetes.md); `workers:` and `slices:` are then not used.
 *
 * Guarantees: a kubeconfig path is expanded (`~`) and resolved against the config file's
 * directory; a namespace or context is a valid Kubernetes name; an image is a valid reference.
 * Every error names the key and says what is expected.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { invalid } from '../../model/errors.js';
import { checkImageReference } from '../../model/image.js';
import { describeValue, parseWith } from '../../model/schema-errors.js';
import { object, oneOf, resolving, text } from './fields.js';

export const BACKEND_KINDS = ['local', 'kubernetes'] as const;

/** The resolved backend the daemon builds its runtime and workers from. */
export type BackendConfig =
  | { kind: 'local' }
  | {
      kind: 'kubernetes';
      /** Absolute kubeconfig path; null: KUBECONFIG, then ~/.kube/config, then the in-cluster account. */
      kubeconfig: string | null;
      /** Context of the kubeconfig; null: its current context. */
      context: string | null;
      /** Namespace of the Pods (default `default`). */
      namespace: string;
      /** Image of a job that names none; null: such jobs are refused at launch with a hint. */
      image: string | null;
    };

/** A DNS label (RFC 1123), as Kubernetes names namespaces. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const namespace = parseWith<string, string>((value) => {
  if (typeof value !== 'string' || value.length > 63 || !DNS_LABEL.test(value.trim())) {
    throw invalid(
      `invalid namespace ${describeValue(value)}: expected a Kubernetes namespace name`,
      'lower-case letters, digits and -, at most 63 characters, e.g. iris-jobs',
    );
  }
  return value.trim();
});

function kubeconfigPath(source: string) {
  return parseWith<string, string>((value) => {
    if (typeof value !== 'string' || value.trim() === '')
      throw invalid(
        `invalid kubeconfig ${describeValue(value)}: expected a file path`,
        'e.g. kubeconfig: ~/.kube/config',
      );
    const v = value.trim();
    const expanded = v === '~' ? os.homedir() : v.startsWith('~/') ? path.join(os.homedir(), v.slice(2)) : v;
    if (path.isAbsolute(expanded)) return path.normalize(expanded);
    return path.isAbsolute(source) ? path.resolve(path.dirname(source), expanded) : path.resolve(expanded);
  });
}

/** The `backend:` key of a config file read from `source`. */
export function backend(source: string) {
  return object(
    {
      kind: oneOf(BACKEND_KINDS, 'backend kind').nullish(),
      kubeconfig: kubeconfigPath(source).nullish(),
      context: text('context').nullish(),
      namespace: namespace.nullish(),
      image: text('image')
        .transform(resolving((value: string) => checkImageReference(value)))
        .nullish(),
    },
    'an object such as { kind: kubernetes, namespace: default }',
  )
    .nullish()
    .transform(
      resolving((b, ctx): BackendConfig => {
        // A block without `kind` is the local backend, as an absent block is (docs/configuration.md).
        if (!b || b.kind == null || b.kind === 'local') {
          for (const key of ['kubeconfig', 'context', 'namespace', 'image'] as const) {
            if (b?.[key] != null) {
              ctx.issues.push({
                code: 'custom',
                path: [key],
                message: `${key} is a setting of the kubernetes backend`,
                input: b[key],
                params: { hint: 'add kind: kubernetes, or remove the key' },
              });
              return z.NEVER;
            }
          }
          return { kind: 'local' };
        }
        return {
          kind: 'kubernetes',
          kubeconfig: b.kubeconfig ?? null,
          context: b.context ?? null,
          namespace: b.namespace ?? 'default',
          image: b.image ?? null,
        };
      }),
    );
}

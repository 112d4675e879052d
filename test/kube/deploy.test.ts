/**
 * The in-cluster manifests of deploy/kubernetes/ (docs/kubernetes.md, "Running the controller in
 * the cluster").
 *
 * Always: the manifests agree with each other and with iris's config rules (the ConfigMap's
 * `task-door` validates; tasks are told the Service's name and port; the Deployment listens on
 * the port the Service targets; no manifest names a namespace of its own).
 *
 * Against a real API server (scripts/k8s-setup.sh, with RBAC enforced through
 * IRIS_K8S_AUTHORIZATION_MODE=Node,RBAC): the kustomization applied into a namespace other than
 * its default is accepted (server-side dry run, then a real create), and the controller's
 * ServiceAccount, with a token of its own (TokenRequest), may do exactly what the kubernetes
 * backend needs and not more. `describeKube` (test/kube/server.ts): skipped with one line when
 * the server is not built; under CI=true that fails instead. A missing kubectl fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { validateConfig } from '../../src/config/schema/validate.js';
import { parseControllerUrl } from '../../src/model/net-address.js';
import { describeKube, startKubeServer, type KubeServer } from './server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DEPLOY = path.join(ROOT, 'deploy', 'kubernetes');
const NAMESPACE = 'iris-check';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

function manifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of readdirSync(DEPLOY).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')) {
    for (const doc of YAML.parseAllDocuments(readFileSync(path.join(DEPLOY, file), 'utf8')))
      out.push(doc.toJS() as Manifest);
  }
  return out;
}

function one(kind: string, name?: string): Manifest & Record<string, any> {
  const found = manifests().filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

describe('deploy/kubernetes manifests', () => {
  it('name no namespace of their own (kustomization.yaml gives it)', () => {
    for (const m of manifests()) expect(m.metadata.namespace, `${m.kind}/${m.metadata.name}`).toBeUndefined();
    const kustomization = YAML.parse(readFileSync(path.join(DEPLOY, 'kustomization.yaml'), 'utf8')) as {
      namespace: string;
      resources: string[];
    };
    expect(kustomization.resources.sort()).toEqual(
      readdirSync(DEPLOY)
        .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
        .sort(),
    );
  });

  it("the ConfigMap's config is valid, and tasks are told the Service the Deployment listens behind", () => {
    const text = (one('ConfigMap', 'iris-config').data as Record<string, string>)['.irisrc.yaml']!;
    const file = YAML.parse(text) as Record<string, unknown>;
    const config = validateConfig({ 'task-door': file['task-door'] }, '/etc/iris/.irisrc.yaml');
    expect(Object.keys(file).sort()).toEqual(['backend', 'task-door']);
    const service = one('Service', 'iris-task-door');
    const advertised = parseControllerUrl(config.taskDoor!.advertise);
    expect(advertised.host).toBe(service.metadata.name);
    const servicePort = (service.spec.ports as Array<{ port: number; targetPort: string }>)[0]!;
    expect(advertised.port).toBe(servicePort.port);
    const deployment = one('Deployment', 'iris-controller');
    const container = deployment.spec.template.spec.containers[0];
    const containerPort = (container.ports as Array<{ name: string; containerPort: number }>).find(
      (p) => p.name === servicePort.targetPort,
    );
    expect(containerPort?.containerPort).toBe(config.taskDoor!.listen.port);
    expect(config.taskDoor!.listen.host).toBe('0.0.0.0');
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    // One controller per store: one replica, the old Pod gone before a new one starts.
    expect([deployment.spec.replicas, deployment.spec.strategy.type]).toEqual([1, 'Recreate']);
    expect(deployment.spec.template.spec.serviceAccountName).toBe(one('ServiceAccount').metadata.name);
    // The state directory (IRIS_HOME) is the claim's volume; the config file is the ConfigMap's.
    const env = Object.fromEntries(
      (container.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]),
    );
    const mounts = Object.fromEntries(
      (container.volumeMounts as Array<{ name: string; mountPath: string }>).map((m) => [m.name, m.mountPath]),
    );
    const volumes = Object.fromEntries(
      (deployment.spec.template.spec.volumes as Array<{ name: string } & Record<string, any>>).map((v) => [v.name, v]),
    );
    const stateVolume = Object.keys(mounts).find((name) => mounts[name] === env.IRIS_HOME)!;
    expect(volumes[stateVolume].persistentVolumeClaim.claimName).toBe(one('PersistentVolumeClaim').metadata.name);
    const configVolume = Object.keys(mounts).find((name) => env.IRIS_CONFIG === `${mounts[name]}/.irisrc.yaml`)!;
    expect(volumes[configVolume].configMap.name).toBe('iris-config');
  });
});

describeKube('deploy/kubernetes against a real API server with RBAC enforced', () => {
  let server: KubeServer | undefined;
  let kubeconfig: string;
  let token: string;

  /** kubectl with the admin kubeconfig (or `--token` given); returns { status, stdout, stderr }. */
  const kubectl = (args: string[], extra: string[] = []) => {
    const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...extra, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return {
      status: r.status,
      stdout: r.stdout,
      stderr: r.stderr
        .split('\n')
        .filter((l) => !/^Warning:|version skew/i.test(l))
        .join('\n'),
    };
  };
  const asController = (args: string[]) => kubectl(args, ['--token', token]);

  beforeAll(async () => {
    const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (probe.status !== 0)
      throw new Error('kubectl is needed to apply the manifests: install it (apt-get install kubectl)');
    // RBAC enforced for this file's server only (k8s-setup.sh reads it at start; each test file is its own process).
    const previous = process.env.IRIS_K8S_AUTHORIZATION_MODE;
    process.env.IRIS_K8S_AUTHORIZATION_MODE = 'Node,RBAC';
    try {
      server = await startKubeServer();
    } finally {
      if (previous === undefined) delete process.env.IRIS_K8S_AUTHORIZATION_MODE;
      else process.env.IRIS_K8S_AUTHORIZATION_MODE = previous;
    }
    kubeconfig = server.kubeconfig;
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
  }, 70_000);

  it('the kustomization applied into another namespace is accepted (dry run, then created)', () => {
    // A copy with the namespace changed: the manifests must not depend on the default one.
    const copy = mkdtempSync(path.join(tmpdir(), 'iris-deploy-'));
    try {
      cpSync(DEPLOY, copy, { recursive: true });
      const file = path.join(copy, 'kustomization.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^namespace: .*$/m, `namespace: ${NAMESPACE}`));
      expect(kubectl(['create', 'namespace', NAMESPACE]).status).toBe(0);
      const dry = kubectl(['apply', '-k', copy, '--dry-run=server']);
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('deployment.apps/iris-controller created (server dry run)');
      const real = kubectl(['apply', '-k', copy]);
      expect(real.status, real.stderr).toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const got = kubectl([
      'get',
      'serviceaccount,role,rolebinding,configmap,service,persistentvolumeclaim,deployment',
      '-n',
      NAMESPACE,
      '-o',
      'name',
    ]);
    expect(got.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'configmap/iris-config',
      'deployment.apps/iris-controller',
      'persistentvolumeclaim/iris-state',
      'role.rbac.authorization.k8s.io/iris-controller-pods',
      'rolebinding.rbac.authorization.k8s.io/iris-controller-pods',
      'service/iris-task-door',
      'serviceaccount/iris-controller',
    ]);
    const binding = JSON.parse(
      kubectl(['get', 'clusterrolebinding', 'iris-controller-nodes', '-o', 'json']).stdout,
    ) as { subjects: Array<{ namespace: string }> };
    expect(binding.subjects[0]!.namespace).toBe(NAMESPACE);
  });

  it("the controller's ServiceAccount may do what the backend needs, and nothing more", () => {
    const issued = kubectl(['create', 'token', 'iris-controller', '-n', NAMESPACE]);
    expect(issued.status, issued.stderr).toBe(0);
    token = issued.stdout.trim();
    const can = (verb: string, resource: string, namespace = NAMESPACE) =>
      asController(['auth', 'can-i', verb, resource, '-n', namespace]).stdout.trim();
    const needed: Array<[string, string]> = [
      ['get', 'nodes'],
      ['list', 'nodes'],
      ['watch', 'nodes'],
      ['create', 'pods'],
      ['get', 'pods'],
      ['list', 'pods'],
      ['watch', 'pods'],
      ['delete', 'pods'],
      ['create', 'pods/binding'],
      ['get', 'pods/log'],
      ['get', 'pods/status'],
    ];
    for (const [verb, resource] of needed) expect(can(verb, resource), `${verb} ${resource}`).toBe('yes');
    const denied: Array<[string, string, string?]> = [
      ['delete', 'nodes'],
      ['patch', 'nodes'],
      ['create', 'nodes'],
      ['update', 'pods/status'],
      ['patch', 'pods'],
      ['get', 'secrets'],
      ['create', 'pods', 'default'],
      ['list', 'pods', 'default'],
      ['create', 'deployments'],
    ];
    for (const [verb, resource, namespace] of denied)
      expect(can(verb, resource, namespace), `${verb} ${resource} in ${namespace ?? NAMESPACE}`).toBe('no');
    // And the server really refuses it, not only the review.
    const node = JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    const created = spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'create', '-f', '-'], {
      input: node,
      encoding: 'utf8',
    });
    expect(created.status, created.stderr).toBe(0);
    expect(asController(['get', 'nodes', '-o', 'name']).stdout).toContain('node/n1');
    const refused = asController(['delete', 'node', 'n1']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(
      /forbidden: User "system:serviceaccount:iris-check:iris-controller" cannot delete resource "nodes"/,
    );
  });
});

/**
 * Shared setup of the tests that need the real Docker engine. They run when `npm test` found an
 * engine (IRIS_TEST_DOCKER=1, then a missing engine fails them loudly) or when one answers here;
 * otherwise the files are skipped with one printed reason. Missing test images are built with
 * scripts/docker-setup.sh (only image builds happen when an engine already answers).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeEngine } from '../../src/runtime/docker/engine.js';

export const BUSYBOX = 'iris-test/busybox';
export const NODE_IMAGE = 'iris-test/node';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function imagesPresent(): boolean {
  try {
    docker(['image', 'inspect', BUSYBOX, NODE_IMAGE]);
    return true;
  } catch {
    return false;
  }
}

export interface DockerTestEnv {
  run: boolean;
  why: string;
}

/** Decides whether the Docker tests run; builds the images when they are missing. */
export async function dockerTestEnv(): Promise<DockerTestEnv> {
  const forced = process.env.IRIS_TEST_DOCKER === '1';
  const probe = await probeEngine({ timeoutMs: 5000 });
  if (!probe.ok) {
    if (!forced) console.warn(`skipping Docker runtime tests: ${probe.message}`);
    return { run: forced, why: probe.message };
  }
  if (!imagesPresent())
    execFileSync('bash', [path.join(root, 'scripts', 'docker-setup.sh')], { stdio: 'inherit', timeout: 300_000 });
  return { run: true, why: `engine ${probe.version}` };
}

/** Ids of containers (any state) whose label `name` has `value`. */
export function containersWithLabel(name: string, value: string): string[] {
  const out = docker(['ps', '-aq', '--no-trunc', '--filter', `label=${name}=${value}`]);
  return out === '' ? [] : out.split('\n');
}

export function inspectContainer(id: string): Record<string, any> {
  return JSON.parse(docker(['inspect', id]))[0];
}

/** Removes containers; one already gone (its cluster removing it at the same time) is fine. */
export function removeContainers(ids: readonly string[]): void {
  for (const id of ids) {
    try {
      docker(['rm', '-f', id]);
    } catch {
      // already removed
    }
  }
}

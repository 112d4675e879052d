/**
 * Global setup of the `kube` vitest project: when the API server is not built (and not under
 * CI, where the suites fail instead), prints the one skip line for the whole run and tells the
 * test files it was printed (provided value `kubeSkipNoted`), so they stay quiet.
 */
import type { TestProject } from 'vitest/node';
import { inCI, kubeBuilt, KUBE_SKIP_LINE } from './built.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeSkipNoted: boolean;
  }
}

export default function setup(project: TestProject): void {
  const skip = !kubeBuilt() && !inCI();
  if (skip) console.log(KUBE_SKIP_LINE);
  project.provide('kubeSkipNoted', skip);
}

import { configDefaults, defineConfig } from 'vitest/config';

// Tests that need a real Kubernetes API server (scripts/k8s-setup.sh): everything under
// test/kube/ and any `*.kube.test.ts`. They form their own project, run as a group of their own (not alongside the others), one
// file at a time (each file starts its own server), with longer but bounded timeouts.
const kubeTests = ['test/kube/**/*.test.ts', 'test/**/*.kube.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
          exclude: [...configDefaults.exclude, ...kubeTests],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'kube',
          include: kubeTests,
          globalSetup: ['test/kube/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

import {defineConfig} from 'vitest/config'

// End-to-end tests against the real control plane started by scripts/cluster.mjs
// (KUBECONFIG points at it). Files run one at a time: they share cluster-scoped Nodes.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
})

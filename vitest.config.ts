import {defineConfig} from 'vitest/config'

// Unit tests (literals) and CLI tests (snapshot files). No network.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx', 'test/cli/**/*.test.ts'],
    testTimeout: 30_000,
    // One fixed fast-check seed for every property test (FC_SEED overrides): test/unit/fast-check-seed.ts.
    setupFiles: ['test/unit/fast-check-seed.ts'],
  },
})

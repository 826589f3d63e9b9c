import {defineConfig} from 'vitest/config'

// Release artefacts: the krew manifest, the archives built by `npm run package` (installed
// by hand into a temporary PATH and run through kubectl's plugin discovery), and the npm
// tarball. `npm run test:package` builds them first.
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})

// The differential test alone, with its own control plane: explain vs the real EndpointSlice
// controller on seeded random clusters.
//   npm run test:differential -- --scenarios 1000 --seed 1
import {spawnSync} from 'node:child_process'
import {parseArgs} from 'node:util'

const {values} = parseArgs({options: {scenarios: {type: 'string', default: '100'}, seed: {type: 'string', default: '1'}}})
for (const [k, v] of Object.entries(values)) {
  if (!/^\d+$/.test(v)) {
    console.error(`--${k} must be a whole number, got ${JSON.stringify(v)}`)
    process.exit(2)
  }
}
const r = spawnSync(process.execPath, ['scripts/cluster.mjs', 'run', '--', 'vitest', 'run', '-c', 'vitest.e2e.config.ts', 'test/e2e/differential.test.ts'], {
  stdio: 'inherit',
  env: {...process.env, DIFF_SCENARIOS: values.scenarios, DIFF_SEED: values.seed, CLUSTER_INSTANCE: process.env.CLUSTER_INSTANCE ?? 'differential'},
})
process.exit(r.status ?? 1)

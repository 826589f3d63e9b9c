// The layering rules (.dependency-cruiser.cjs, docs/architecture.md) bite: run on a small tree
// (test/unit/data/layering/src/) with one deliberate violation of each rule next to imports
// each rule allows, the checker reports exactly the violations. `npm run layering` (part of
// `npm test`) runs the same rules on src/.
import {createRequire} from 'node:module'
import {resolve} from 'node:path'
import {cruise} from 'dependency-cruiser'
import type {ICruiseResult, IConfiguration} from 'dependency-cruiser'
import {expect, it} from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const config = createRequire(import.meta.url)(resolve(ROOT, '.dependency-cruiser.cjs')) as IConfiguration

it('reports each deliberate violation of the fixture tree, and nothing else', async () => {
  const {output} = await cruise(['src'], {...config.options, ruleSet: {forbidden: config.forbidden}, validate: true, baseDir: resolve(import.meta.dirname, 'data/layering')})
  const result = output as ICruiseResult
  const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`).sort()
  expect(found).toEqual([
    'domain-no-io-builtins: src/explain/report.ts -> fs',
    'domain-no-io-libraries: src/explain/report.ts -> node_modules/@oclif/core/lib/index.js',
    'domain-no-io-libraries: src/explain/report.ts -> node_modules/chalk/source/index.d.ts',
    'domain-no-outer-rooms: src/explain/report.ts -> src/cluster/read.ts',
    'no-cycles: src/simulate/a.ts -> src/simulate/b.ts',
    'not-to-unresolvable: src/watch/typo.ts -> ./no-such-module.js',
    'only-entry-imports-commands: src/cluster/calls-command.ts -> src/commands/run.ts',
    'render-no-cluster-or-commands: src/render/table.ts -> src/cluster/read.ts',
    'upstream-only-upstream: src/upstream/port.ts -> src/state/state.ts',
  ])
})

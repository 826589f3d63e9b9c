// check and nodes on the bundled snapshot files (no cluster), as a user runs them; and
// watch's argument validation. `npm run build` first.
import {XMLValidator} from 'fast-xml-parser'
import {mkdtempSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {EXAMPLE, ROOT, runCli} from './run-cli.js'

const UNLABELED = path.join(ROOT, 'examples', 'unlabeled-node.yaml')
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kt-check-'))

describe('check --from-file', () => {
  it('default policies on every Service: exit 1, one row per Service x policy, the verdict line', () => {
    const r = runCli(['check', '-A', '-f', EXAMPLE])
    expect(r.code).toBe(1)
    // The snapshot holds no data-plane information: said first, plainly; data-plane-hints is not
    // checked, said once as a warning, not as a SKIP row per Service (issue 19 finding 11).
    expect(r.stderr).toBe(
      "Warning: data-plane-hints not checked (data plane: not recorded in the snapshot; kube-proxy's rules assumed): name the data plane with --data-plane to check that nodes honour the hints\n",
    )
    expect(r.stdout.split('\n')[0]).toBe("Data plane: not recorded in the snapshot; kube-proxy's rules assumed")
    expect(r.stdout.split('\n')[1]).toMatch(/^SERVICE\s+POLICY\s+RESULT\s+MESSAGE$/)
    expect(r.stdout).not.toMatch(/data-plane-hints/)
    expect(r.stdout).toMatch(/shop\/checkout\s+require-hints\s+PASS\s+hints set \(topology-mode Auto, 9 ready endpoints\)/)
    expect(r.stdout).toMatch(/shop\/inventory\s+lint\s+FAIL\s+1 error\(s\): ignored-value/)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^FAILED: 8 Service\(s\) checked, \d+ passed, \d+ failed \(\d+ of 32 checks failed, \d+ skipped\)\.$/)
  })
  it('a Service that passes exits 0', () => {
    const r = runCli(['check', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--require-hints', '--no-fallback', '--no-drift'])
    expect(r.code).toBe(0)
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('PASSED: 1 Service(s) checked, 1 passed, 0 failed (0 of 3 checks failed).')
  })
  it('-o junit is well-formed XML', () => {
    const r = runCli(['check', '-A', '-f', EXAMPLE, '-o', 'junit', '--lint', '--max-overload', '0.2'])
    expect(r.code).toBe(1)
    expect(XMLValidator.validate(r.stdout)).toBe(true)
    expect(r.stdout.match(/<testcase /g)).toHaveLength(16)
  })
  it('a policy file, with flags on top', () => {
    const file = path.join(tmp, 'policy.yaml')
    writeFileSync(file, 'apiVersion: kubectl-topology.io/v1\nkind: CheckPolicy\npolicies:\n  requireHints: true\n  minEndpointsPerZone: 3\n')
    const r = runCli(['check', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--policy-file', file, '--no-drift', '-o', 'json'])
    expect(r.code).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.policies).toEqual({
      requireHints: true,
      noFallback: false,
      maxOverload: null,
      minEndpointsPerZone: 3,
      noDrift: true,
      lint: false,
      dataPlaneHonoursHints: false,
      proxyHonoursTopology: false,
      hintsOverRange: false,
      hintsThroughRollout: false,
    })
    expect(doc.services[0].results.map((x: {policy: string; status: string}) => `${x.policy}=${x.status}`)).toEqual([
      'require-hints=pass',
      'min-endpoints-per-zone=fail',
      'no-drift=pass',
    ])
  })
  it('a bad policy file: exit 3 naming the field', () => {
    const file = path.join(tmp, 'bad.yaml')
    writeFileSync(file, 'policies:\n  maxOverlaod: 0.2\n')
    const r = runCli(['check', '-A', '-f', EXAMPLE, '--policy-file', file])
    expect(r.code).toBe(3)
    expect(r.stderr.trim()).toBe(
      `error: --policy-file ${file}: unknown policy "policies.maxOverlaod" (known: requireHints, noFallback, maxOverload, minEndpointsPerZone, noDrift, lint, dataPlaneHonoursHints, proxyHonoursTopology, hintsOverRange, hintsThroughRollout)`,
    )
    expect(r.stdout).toBe('')
  })
  it('--max-overload 20 is refused with both spellings (it used to gate at 2000% and pass everything)', () => {
    for (const cmd of ['check', 'plan']) {
      const r = runCli([cmd, 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--max-overload', '20'])
      expect(r.code).toBe(2)
      expect(r.stderr.trim()).toBe('error: --max-overload 20: did you mean 20% (0.2)? Give a percentage with % or a fraction from 0 to 1')
      expect(r.stdout).toBe('')
    }
    // 20% and 0.2 are the same bound; catalog's eu-west-1c overload (100%) fails it, printed as a percentage.
    const pct = runCli(['check', 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--max-overload', '20%', '-o', 'json'])
    const frac = runCli(['check', 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--max-overload', '0.2', '-o', 'json'])
    expect(pct.code).toBe(1)
    expect(frac.stdout).toBe(pct.stdout)
    expect(runCli(['check', 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--max-overload', '20%']).stdout).toMatch(
      /FAIL\s+worst overload after the next sync 100% in eu-west-1c, above the 20% bound/,
    )
  })
  it('a policy file takes maxOverload as "20%" or 0.2; 20 is exit 3 with both spellings', () => {
    const good = path.join(tmp, 'pct.yaml')
    writeFileSync(good, 'policies:\n  maxOverload: 20%\n')
    expect(JSON.parse(runCli(['check', 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--policy-file', good, '-o', 'json']).stdout).policies.maxOverload).toBe(0.2)
    const bad = path.join(tmp, 'twenty.yaml')
    writeFileSync(bad, 'policies:\n  maxOverload: 20\n')
    const r = runCli(['check', 'svc/catalog', '-n', 'shop', '-f', EXAMPLE, '--policy-file', bad])
    expect(r.code).toBe(3)
    expect(r.stderr.trim()).toBe(`error: --policy-file ${bad}: policies.maxOverload 20: did you mean 20% (0.2)? Give a percentage with % or a fraction from 0 to 1`)
  })
  it('usage errors: exit 2', () => {
    expect(runCli(['check', 'svc/cart', '-l', 'a=b', '-n', 'shop', '-f', EXAMPLE]).code).toBe(2)
    expect(runCli(['check', '-A', '-f', EXAMPLE, '--min-endpoints-per-zone', '-1']).code).toBe(2)
    expect(runCli(['check', '-A', '-f', EXAMPLE, '-o', 'xml']).code).toBe(2)
  })
})

describe('nodes --from-file', () => {
  it('lists zones, counted and ignored nodes', () => {
    const r = runCli(['nodes', '-f', EXAMPLE])
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n')[0]).toBe('topology-mode Auto: hints possible: zone CPU shares computed from 9 counted node(s) in 3 zones')
    expect(r.stdout).toMatch(/eu-west-1a\s+3\s+1\s+23730m\s+33\.3%/)
    expect(r.stdout).toMatch(/ip-10-0-3-99\.eu-west-1\.compute\.internal\s+eu-west-1c\s+7910m\s+ignored: not Ready/)
  })
  it('names the node that disables hints for every Service, with the fix', () => {
    const r = runCli(['nodes', '-f', UNLABELED])
    expect(r.stdout).toContain('topology-mode Auto: hints disabled for every Service')
    expect(r.stdout).toContain(
      '  - ip-10-0-4-10.eu-west-1.compute.internal (no-zone-label): label node ip-10-0-4-10.eu-west-1.compute.internal with topology.kubernetes.io/zone set to the zone it runs in',
    )
    const json = JSON.parse(runCli(['nodes', '-f', UNLABELED, '-o', 'json']).stdout)
    expect(json.auto.reason).toBe('disabling-nodes')
  })
})

describe('watch: argument checks before any I/O', () => {
  it('needs exactly one Service', () => {
    const none = runCli(['watch'])
    expect(none.code).toBe(2)
    expect(none.stderr.trim()).toBe('error: watch: exactly one NAME is required, got 0: kubectl topology watch svc/NAME')
    const two = runCli(['watch', 'svc/a', 'svc/b'])
    expect(two.code).toBe(2)
    expect(two.stderr.trim()).toBe('error: watch: exactly one NAME is required, got 2: kubectl topology watch svc/NAME')
    // -n alone selects a namespace's Services for the other commands: watch says why it does not.
    const ns = runCli(['watch', '-n', 'shop'])
    expect(ns.code).toBe(2)
    expect(ns.stderr.trim()).toBe(
      'error: watch: exactly one NAME is required, got 0; -n shop alone selects every Service in the namespace, and watch follows one: kubectl topology watch svc/NAME -n shop',
    )
  })
})

// serve's alert rules (deploy/prometheus/): promtool checks them and runs their unit tests
// (rules.test.yaml); a broken rule makes those tests fail; the PrometheusRule holds the same
// groups; every metric a rule reads is one serve exports. promtool is Debian's (installed by
// scripts/prometheus.mjs when missing); the tests skip only when it cannot be installed.
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {FAMILIES} from '../../src/serve/catalogue.js'
// @ts-expect-error: a test script in plain JavaScript, without types.
import {ensurePrometheus} from '../../scripts/prometheus.mjs'

const DIR = path.join(import.meta.dirname, '../../deploy/prometheus')
let promtool: string | null = null
try {
  promtool = (ensurePrometheus(() => {}) as {promtool: string}).promtool
} catch {
  promtool = null
}
const tmp = mkdtempSync(path.join(tmpdir(), 'serve-rules-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

const run = (...args: string[]) => spawnSync(promtool!, args, {encoding: 'utf8', cwd: DIR})

describe.skipIf(promtool === null)('alert rules under promtool', () => {
  it('pass promtool check rules', () => {
    const r = run('check', 'rules', 'rules.yaml')
    expect(r.stdout + r.stderr).toContain('SUCCESS: 5 rules found')
    expect(r.status).toBe(0)
  })
  it('pass their promtool unit tests', () => {
    const r = run('test', 'rules', 'rules.test.yaml')
    expect(r.stdout + r.stderr).toContain('SUCCESS')
    expect(r.status).toBe(0)
  })
  it('fail those tests when a rule is broken', () => {
    // TopologyHintsDisabled comparing with the wrong value, and the source alert without its `for`.
    for (const [from, to] of [
      ['kubectl_topology_service_hints_live == 0', 'kubectl_topology_service_hints_live == 1'],
      ['expr: kubectl_topology_source_up == 0\n        for: 5m', 'expr: kubectl_topology_source_up == 0\n        for: 1m'],
    ] as const) {
      const rules = readFileSync(path.join(DIR, 'rules.yaml'), 'utf8')
      expect(rules).toContain(from)
      writeFileSync(path.join(tmp, 'rules.yaml'), rules.replace(from, to))
      copyFileSync(path.join(DIR, 'rules.test.yaml'), path.join(tmp, 'rules.test.yaml'))
      const r = spawnSync(promtool!, ['test', 'rules', 'rules.test.yaml'], {encoding: 'utf8', cwd: tmp})
      expect(r.status).toBe(1)
      expect(r.stdout + r.stderr).toContain('FAILED')
    }
  })
})

describe('alert rules', () => {
  const rules = parse(readFileSync(path.join(DIR, 'rules.yaml'), 'utf8'))
  it('are the same groups in the PrometheusRule', () => {
    const pr = parse(readFileSync(path.join(DIR, 'prometheusrule.yaml'), 'utf8'))
    expect(pr.kind).toBe('PrometheusRule')
    expect(pr.spec.groups).toEqual(rules.groups)
  })
  it('read only metrics serve exports', () => {
    const names = new Set<string>(FAMILIES.map((f) => f.name))
    for (const r of rules.groups[0].rules) {
      const used = (r.expr as string).match(/kubectl_topology_[a-z_]+/g) ?? []
      expect(used.length).toBeGreaterThan(0)
      for (const m of used) expect(names, `${r.alert}: ${m}`).toContain(m)
    }
  })
})

// kubectl topology plan on the bundled snapshots: the table, JSON against the schema's shape,
// YAML, the flags' one-line usage errors, --max-counts, and check's plan policies from a
// policy file.
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parse} from 'yaml'
import {describe, expect, it} from 'vitest'
import {ROOT, runCli} from './run-cli.js'

const AUTOSCALING = path.join(ROOT, 'examples/autoscaling.yaml')
const THREE_ZONES = path.join(ROOT, 'examples/three-zones.yaml')

describe('plan --from-file', () => {
  it('the table names the workload, its HPA and PDB, and the recommendation with its commands', () => {
    const r = runCli(['plan', 'svc/web', '-n', 'shop', '-f', AUTOSCALING])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Workload:    deployment/web, 6 replicas; HPA web 3..12; PDB web allows 1 disruption(s); zone spread maxSkew 1 DoNotSchedule')
    expect(r.stdout).toMatch(/^Auto {12}\+\.\.\+\+\.\+\+\.\+$/m)
    expect(r.stdout).toContain('kubectl patch hpa web -n shop --type=merge -p \'{"spec":{"minReplicas":12}}\'')
  })
  it('JSON and YAML carry the same report; the cost is volume x cross-zone share / GiB x price', () => {
    const args = ['plan', 'svc/checkout', '-n', 'shop', '-f', THREE_ZONES, '--traffic-volume', '40TiB', '--cross-zone-price', '0.01']
    const json = JSON.parse(runCli([...args, '-o', 'json']).stdout)
    expect(parse(runCli([...args, '-o', 'yaml']).stdout)).toEqual(json)
    const s = json.services[0]
    expect(s.cost.volumeBytes).toBe(40 * 2 ** 40)
    const none = s.cost.byMode.find((c: {mode: string}) => c.mode === 'none')
    expect(none.monthlyCost).toBeCloseTo(40 * 1024 * none.crossZoneShare * 0.01, 9)
  })
  it('--max-counts bounds the range and says so', () => {
    const json = JSON.parse(runCli(['plan', 'svc/web', '-n', 'shop', '-f', AUTOSCALING, '--max-counts', '4', '-o', 'json']).stdout)
    expect(json.services[0].range.rows.map((r: {replicas: number}) => r.replicas)).toEqual([3, 4, 5, 6])
    expect(json.services[0].notes).toContain('the HPA allows up to 12 replicas; plan evaluates 3..6')
  })
  it.each([
    [['--traffic-volume', '40TiB'], /^error: --traffic-volume and --cross-zone-price go together: add --cross-zone-price/],
    [['--cross-zone-price', '0.01'], /^error: --traffic-volume and --cross-zone-price go together: add --traffic-volume/],
    [['--traffic-volume', 'NaN', '--cross-zone-price', '0.01'], /^error: --traffic-volume: invalid value "NaN"/],
    [['--traffic-volume', '1TiB', '--cross-zone-price', 'free'], /^error: --cross-zone-price: invalid value "free"/],
    [['--max-overload', 'lots'], /^error: --max-overload: invalid value "lots"/],
    [['--max-counts', '0'], /^error: --max-counts: invalid value "0"/],
    [['--traffic', 'a'], /^error: --traffic: invalid entry "a"/],
  ])('%j: one line, exit 2', (extra, message) => {
    const r = runCli(['plan', 'svc/web', '-n', 'shop', '-f', AUTOSCALING, ...extra])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr.trim()).toMatch(message)
    expect(r.stdout).toBe('')
  })
  it('-A -o json on every bundled example validates against schema/plan.v1.json', async () => {
    const {default: Ajv2020} = await import('ajv/dist/2020.js')
    const {readFileSync} = await import('node:fs')
    const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(path.join(ROOT, 'schema/plan.v1.json'), 'utf8')))
    for (const f of ['three-zones', 'unlabeled-node', 'rollouts', 'autoscaling']) {
      const r = runCli(['plan', '-A', '-f', path.join(ROOT, `examples/${f}.yaml`), '-o', 'json', '--traffic-volume', '1TB', '--cross-zone-price', '0.02'])
      expect(r.code).toBe(0)
      expect(validate(JSON.parse(r.stdout)), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
  })
  it('an unknown Service: exit 4', () => {
    expect(runCli(['plan', 'svc/nope', '-n', 'shop', '-f', AUTOSCALING]).code).toBe(4)
  })
})

describe('check: the plan policies from a policy file', () => {
  it('hintsOverRange and hintsThroughRollout fail web (Auto refused at 4, 5, 8, 11 of 3..12) and skip api (no mode)', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'kt-plan-')), 'policy.yaml')
    writeFileSync(file, 'kind: CheckPolicy\npolicies:\n  hintsOverRange: true\n  hintsThroughRollout: true\n')
    const r = runCli(['check', '-A', '-f', AUTOSCALING, '--policy-file', file, '-o', 'json'])
    expect(r.code).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.policies).toMatchObject({hintsOverRange: true, hintsThroughRollout: true})
    const results = Object.fromEntries(
      doc.services.map((s: {name: string; results: {policy: string; status: string}[]}) => [s.name, s.results.map((x) => `${x.policy}=${x.status}`)]),
    )
    expect(results).toEqual({api: ['hints-over-range=skip', 'hints-through-rollout=skip'], web: ['hints-over-range=fail', 'hints-through-rollout=fail']})
    expect(doc.services[1].results[0].message).toBe('Auto loses hints at 4 of 10 counts of 3..12 (HPA web): 4, 5, 8, 11')
  })
})

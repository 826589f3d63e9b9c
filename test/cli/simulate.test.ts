import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {Ajv2020} from 'ajv/dist/2020.js'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {EXAMPLE, ROOT, runCli} from './run-cli.js'

const schema = JSON.parse(readFileSync(path.join(ROOT, 'schema/simulate.v1.json'), 'utf8'))
const validate = new Ajv2020({allErrors: true, strict: false}).compile(schema)

describe('simulate on a snapshot', () => {
  it('ranks every strategy for one Service (table)', () => {
    const r = runCli(['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^Service shop\/checkout \(9 ready endpoints/)
    expect(lines[1]).toMatch(/^RANK\s+STRATEGY\s+SCORE\s+IN-ZONE\s+MAX-OVERLOAD\s+MEAN-OVERLOAD\s+SLICES\s+FALLBACK-ZONES$/)
    expect(lines.slice(2)).toHaveLength(8)
    expect(lines[2]).toMatch(/^1\s+upstream-auto\s+95\.00\s+88\.9%/)
  })
  it('-o json validates against schema/simulate.v1.json and keeps fractions as 0..1', () => {
    const r = runCli(['simulate', '-A', '-f', EXAMPLE, '-o', 'json', '--strategies', 'upstream-auto,same-zone,local,topology-keys'])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    for (const svc of report.services) for (const s of svc.strategies) expect(s.inZoneTraffic).toBeLessThanOrEqual(1 + 1e-9)
  })
  it('-o yaml carries the same report', () => {
    const json = JSON.parse(runCli(['simulate', 'svc/cart', '-n', 'shop', '-f', EXAMPLE, '-o', 'json']).stdout)
    const yaml = parseYaml(runCli(['simulate', 'svc/cart', '-n', 'shop', '-f', EXAMPLE, '-o', 'yaml']).stdout)
    expect(yaml).toEqual(json)
  })
  it('--replicas 100000 ranks the strategies (issue 14 class 8: the hint outcomes overflowed the call stack from about 25,000)', () => {
    const r = runCli(['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--replicas', '100000', '--strategies', 'upstream-auto,same-zone'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(/^Service shop\/checkout \(100000 ready endpoints; eu-west-1a 44445 ep /)
  })
  it('what-ifs combine: without a zone, plus a node, plus replicas; rollout and disruption validate', () => {
    const r = runCli([
      'simulate',
      'svc/checkout',
      '-n',
      'shop',
      '-f',
      EXAMPLE,
      '--without-zone',
      'eu-west-1c',
      '--add-node',
      'zone=eu-west-1a,cpu=4',
      '--replicas',
      '12',
      '--rollout',
      'maxSurge=25%,maxUnavailable=0',
      '--disruption',
      '-o',
      'json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    const svc = report.services[0]
    expect(report.whatIf).toEqual(['without zone eu-west-1c', 'add node zone=eu-west-1a,cpu=4', 'replicas 12'])
    expect(svc.input.readyEndpoints).toBe(12)
    expect(Object.keys(svc.input.endpointsByZone)).toEqual(['eu-west-1a', 'eu-west-1b'])
    const last = svc.rollout[svc.rollout.length - 1]
    expect(last.oldPods).toBe(0)
    expect(last.newReady).toBe(12)
    expect(svc.disruption.map((d: {zone: string}) => d.zone)).toEqual(['eu-west-1a', 'eu-west-1b'])
  })
  it('-o csv: one row per strategy', () => {
    const r = runCli(['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '-o', 'csv', '--strategies', 'random,local'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toBe('namespace,service,strategy,valid,score,inZoneTraffic,maxOverload,meanOverload,sdOverload,endpointSlices,fallbackZones,fallback')
    expect(lines).toHaveLength(3)
  })
})

describe('simulate --rollout from the workload behind the Service (examples/rollouts.yaml)', () => {
  const ROLLOUTS = path.join(ROOT, 'examples/rollouts.yaml')
  const json = (args: string[]) => {
    const r = runCli(['simulate', ...args, '-n', 'shop', '-f', ROLLOUTS, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    return report.services[0]
  }
  it('from-workload reads deployment/web (maxSurge 2, maxUnavailable 1): the same steps as those values given', () => {
    const w = json(['svc/web', '--strategies', 'upstream-auto', '--rollout', 'from-workload'])
    const e = json(['svc/web', '--strategies', 'upstream-auto', '--rollout', 'maxSurge=2,maxUnavailable=1,replicas=9'])
    expect(w.rolloutParameters).toEqual({
      source: 'workload',
      workload: {kind: 'Deployment', name: 'web'},
      kind: 'Deployment',
      type: 'RollingUpdate',
      replicas: 9,
      maxSurge: 2,
      maxUnavailable: 1,
      partition: null,
      resolved: {maxSurge: 2, maxUnavailable: 1},
      overridden: [],
      notes: [],
    })
    expect(e.rolloutParameters.source).toBe('flag')
    expect(w.rollout).toEqual(e.rollout)
  })
  it('keys after from-workload override it; --replicas scales the workload first', () => {
    const o = json(['svc/web', '--strategies', 'upstream-auto', '--rollout', 'from-workload,maxUnavailable=0', '--replicas', '12'])
    expect(o.rolloutParameters).toMatchObject({maxSurge: 2, maxUnavailable: 0, replicas: 12, overridden: ['maxUnavailable', 'replicas']})
    for (const st of o.rollout) expect(st.oldPods + st.newReady).toBeGreaterThanOrEqual(12)
  })
  it('the table says where the parameters come from', () => {
    const r = runCli(['simulate', 'svc/db', '-n', 'shop', '-f', ROLLOUTS, '--strategies', 'upstream-auto', '--rollout', 'from-workload'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Rollout of statefulset/db: RollingUpdate, replicas 6, partition 1, maxUnavailable 1 (1 pod)')
    expect(r.stdout).toMatch(/^1\s+recreate db-5 \(not ready\)\s+5\s+0\s+1\s+eu-west-1a=2,eu-west-1b=2,eu-west-1c=1\s+refused: /m)
  })
  const cases: [string[], number, string][] = [
    [
      ['svc/api', '--rollout', 'from-workload'],
      2,
      'error: --rollout from-workload: 2 workloads are behind Service shop/api (deployment/api, deployment/api-canary): pick one with --workload deployment/api',
    ],
    [['svc/web', '--workload', 'deployment/web'], 2, 'error: --workload picks the workload whose rollout --rollout steps through: add --rollout from-workload'],
    [['svc/web', '--rollout', 'from-workload', '--workload', 'daemonset/web'], 2, 'error: --workload: expected deployment/NAME or statefulset/NAME, got "daemonset/web"'],
    [['svc/web', '--rollout', 'from-workload', '--workload', 'sts/web'], 4, 'error: --workload: no statefulset/web behind Service shop/web (behind it: deployment/web)'],
    [['svc/web', '--rollout', 'from-workload,partition=1'], 2, "error: --rollout: partition applies to a StatefulSet's rolling update, not a Deployment's"],
    [['svc/db', '--rollout', 'from-workload,maxSurge=1'], 2, 'error: --rollout: a StatefulSet does not surge: maxSurge applies to Deployments'],
    [
      ['svc/web', '--rollout', 'maxSurge=0,maxUnavailable=0%'],
      2,
      'error: --rollout: maxSurge and maxUnavailable cannot both be 0 (the API server refuses it: nothing could ever be replaced)',
    ],
    [['svc/web', '--rollout', 'maxUnavailable=120%'], 2, 'error: --rollout: maxUnavailable must not be greater than 100%, got "120%"'],
    [['svc/web', '--rollout', 'partition=1'], 2, 'error: --rollout: partition applies to a StatefulSet: use --rollout from-workload,... with a StatefulSet behind the Service'],
    [['svc/web', '--rollout', 'type=BlueGreen'], 2, 'error: --rollout: type must be RollingUpdate, Recreate (Deployment) or OnDelete (StatefulSet), got "BlueGreen"'],
    [['svc/web', '--rollout', 'maxSurge=1,maxSurge=2'], 2, 'error: --rollout: maxSurge is given twice'],
  ]
  for (const [args, code, message] of cases) {
    it(args.join(' '), () => {
      const r = runCli(['simulate', ...args, '-n', 'shop', '-f', ROLLOUTS])
      expect(r.stderr.trim()).toBe(message)
      expect(r.code).toBe(code)
      expect(r.stdout).toBe('')
    })
  }
  it('a snapshot without workloads: exit 4, saying how to take one that has them', () => {
    const r = runCli(['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--rollout', 'from-workload'])
    expect(r.code).toBe(4)
    expect(r.stderr.trim()).toBe(
      'error: --rollout from-workload: the snapshot holds no Deployments or StatefulSets: take it with `kubectl topology snapshot`, or add deployments,statefulsets to `kubectl get`; or give the parameters, e.g. --rollout maxSurge=25%,maxUnavailable=0',
    )
  })
  it('-A: a Service without a workload behind it gets a warning and no rollout; the others get theirs', () => {
    const r = runCli(['simulate', '-A', '-f', ROLLOUTS, '--strategies', 'upstream-auto', '--rollout', 'from-workload', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.trim()).toBe(
      'Warning: 2 workloads are behind Service shop/api (deployment/api, deployment/api-canary): pick one with --workload deployment/api; no rollout for it',
    )
    const report = JSON.parse(r.stdout)
    expect(report.services.map((s: {name: string; rollout?: unknown}) => [s.name, s.rollout !== undefined])).toEqual([
      ['api', false],
      ['db', true],
      ['web', true],
    ])
  })
})

describe('simulate on synthetic data', () => {
  it('one synthetic cluster from a seed is reproducible', () => {
    const a = runCli(['simulate', '--synthetic', '--seed', '42', '-o', 'json'])
    const b = runCli(['simulate', '--synthetic', '--seed', '42', '-o', 'json'])
    expect(a.code, a.stderr).toBe(0)
    expect(a.stdout).toBe(b.stdout)
    expect(validate(JSON.parse(a.stdout)), JSON.stringify(validate.errors)).toBe(true)
  })
  it("--dataset representative -o csv prints the tool's results.csv columns for every strategy but topology-keys, and notes what stands in for missing data", () => {
    const r = runCli(['simulate', '--dataset', 'representative', '-o', 'csv'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^alg name,invalid cases,valid cases,mean total score/)
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['upstream-auto', 'same-zone', 'same-node', 'random', 'local', 'local-shared', 'local-weighted', 'local-opt'])
    for (const l of lines.slice(1)) expect(l.split(',')[2]).toBe('19')
    expect(r.stderr).toMatch(/^Note: upstream-auto: zone CPU shares are node shares/m)
    expect(r.stderr).toMatch(/^Note: same-node: endpoints are spread round-robin/m)
  })
  it('--dataset with --keys adds topology-keys; without "*" a zone with no endpoints leaves its nodes without backends', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sim-'))
    const file = path.join(dir, 'in.csv')
    writeFileSync(file, 'name,zone1,zone2\nboth,2 4,2 4\nhalf,2 4,2 0\n')
    const r = runCli(['simulate', '--dataset', file, '-o', 'csv', '--per-cluster', '--keys', 'kubernetes.io/hostname,topology.kubernetes.io/zone'])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(1 + 2 * 9)
    expect(lines).toContain('both,topology-keys,100.0000,100.0000,100.0000,100.0000,0.0000%,0.0000%,0.0000')
    expect(lines).toContain('half,topology-keys,invalid,invalid,invalid,invalid,invalid,invalid,invalid')
    // PreferSameZone: zone2 has no endpoint, so its nodes route cluster-wide; zone1's 4 endpoints take all the traffic
    expect(lines).toContain('half,same-zone,77.5000,50.0000,100.0000,100.0000,0.0000%,0.0000%,0.0000')
    const json = JSON.parse(runCli(['simulate', '--dataset', file, '-o', 'json', '--strategies', 'same-node,local']).stdout)
    expect(json.notes).toEqual([expect.stringMatching(/^same-node: endpoints are spread round-robin/)])
    expect(json.aggregates.map((a: {strategy: string}) => a.strategy)).toEqual(['same-node', 'local'])
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
  })
  it("--dataset FILE in the tool's format, per cluster, and json validates", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sim-'))
    const file = path.join(dir, 'in.csv')
    writeFileSync(file, 'name,zone1,zone2,zone3\nperfect,10 10,10 10,20 20\n"a, b",1 5,1 3,1 2\n')
    const rows = runCli(['simulate', '--dataset', file, '-o', 'csv', '--per-cluster', '--strategies', 'random'])
    expect(rows.code, rows.stderr).toBe(0)
    expect(rows.stdout.trim().split('\n')).toEqual([
      'input name,strategy,score,in-zone-traffic score,deviation score,slice score,max deviation,mean deviation,SD of deviation',
      'perfect,random,71.8750,37.5000,100.0000,100.0000,0.0000%,0.0000%,0.0000',
      '"a, b",random,70.0000,33.3333,100.0000,100.0000,0.0000%,0.0000%,0.0000',
    ])
    const json = runCli(['simulate', '--dataset', 'unbalanced', '--clusters', '50', '-o', 'json'])
    expect(validate(JSON.parse(json.stdout)), JSON.stringify(validate.errors)).toBe(true)
  })
})

describe('bad input: one line, documented exit code', () => {
  const cases: [string[], number, RegExp][] = [
    [['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--strategies', 'bogus'], 2, /unknown strategy "bogus"/],
    [['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--without-zone', 'mars'], 2, /no node is in zone "mars"/],
    [['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--keys', '*,kubernetes.io/hostname', '--strategies', 'topology-keys'], 2, /"\*" must be the last key/],
    [
      ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--traffic', 'nowhere=1'],
      2,
      /--traffic: unknown zone "nowhere" \(zones in the cluster: eu-west-1a, eu-west-1b, eu-west-1c\)/,
    ],
    [['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--rollout', 'maxSurge=lots'], 2, /maxSurge must be an integer or a percentage/],
    [['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--add-node', 'zone=a'], 2, /zone= and cpu= are both needed/],
    [['simulate', '--dataset', 'no-such-family-or-file'], 3, /neither a file nor a dataset family/],
    [['simulate', '--dataset', 'representative', '--kube-version', '1.30'], 2, /--kube-version applies to a cluster/],
    [['simulate', '--dataset', 'representative', '--traffic', 'zone1=1'], 2, /--traffic applies to a cluster/],
    [['simulate', 'svc/cart', '-l', 'tier=web', '-n', 'shop', '-f', EXAMPLE], 2, /Service names cannot be combined with -l/],
  ]
  for (const [args, code, message] of cases) {
    it(args.slice(1).join(' '), () => {
      const r = runCli(args)
      expect(r.code).toBe(code)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(message)
      expect(r.stdout).toBe('')
    })
  }
  it('a malformed dataset line names the file and line (exit 3)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sim-'))
    const file = path.join(dir, 'bad.csv')
    writeFileSync(file, 'name,zone1\nok,1 1\nbad,one\n')
    const r = runCli(['simulate', '--dataset', file])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/bad\.csv:3: zone zone1: expected "NODES ENDPOINTS"/)
    writeFileSync(file, 'name,a,a\nok,1 1,1 1\n')
    const twice = runCli(['simulate', '--dataset', file])
    expect(twice.code).toBe(3)
    expect(twice.stderr).toMatch(/bad\.csv:1: zone "a" is named twice/)
  })
})

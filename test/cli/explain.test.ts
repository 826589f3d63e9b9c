// explain, run as a user runs it (the built CLI), on the bundled snapshots and on bad input.
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {Ajv2020} from 'ajv/dist/2020.js'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import type {ExplainReport} from '../../src/explain/report.js'
import {yamlText} from '../../src/render/encode.js'
import {EXAMPLE, ROOT, runCli} from './run-cli.js'

const UNLABELED = path.join(ROOT, 'examples/unlabeled-node.yaml')
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kt-cli-'))
const write = (name: string, text: string) => {
  const p = path.join(tmp, name)
  writeFileSync(p, text)
  return p
}
const json = (args: string[]): ExplainReport => {
  const r = runCli([...args, '-o', 'json'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as ExplainReport
}
const svc = (r: ExplainReport, name: string) => r.services.find((s) => s.name === name)!

describe('explain on examples/three-zones.yaml', () => {
  const all = json(['explain', '-A', '--from-file', EXAMPLE])

  it('shows hints set with a donated endpoint (checkout)', () => {
    const s = svc(all, 'checkout')
    expect(s.controller).toMatchObject({hintsSet: true, reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled, addressType: IPv4'})
    expect(s.zones.map((z) => [z.name, z.readyEndpoints, z.assigned, z.donatedIn, z.donatedOut])).toEqual([
      ['eu-west-1a', 4, 3, 0, 1],
      ['eu-west-1b', 3, 3, 0, 0],
      ['eu-west-1c', 2, 3, 1, 0],
    ])
    expect(s.endpoints.filter((e) => e.donatedTo !== null).map((e) => [e.zone, e.donatedTo])).toEqual([['eu-west-1a', 'eu-west-1c']])
    expect(s.findings).toEqual([])
    expect(s.zones.every((z) => z.kubeProxy.mode === 'PreferSameZone' && !z.kubeProxy.fallback)).toBe(true)
  })

  it("shows refusal for too few endpoints, with upstream's exact message and the counts that would be accepted (cart, payments)", () => {
    const cart = svc(all, 'cart')
    expect(cart.controller).toMatchObject({
      hintsSet: false,
      reason: 'TopologyAwareHintsDisabled',
      message: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (11 endpoints, 3 zones), addressType: IPv4',
    })
    expect(cart.zones.map((z) => z.minimum)).toEqual([4, 4, 4])
    expect(cart.findings).toContain('hints-refused')
    // Three equal zones refuse 4, 5, 8 and 11: the nearest accepted counts are 10 below and 12, 13, 14 above.
    expect(cart.recommendation!.reasons).toContain(
      'Auto: hints refused at 11 ready endpoints (the controller accepts 10, 12, 13, 14); 33% in-zone, worst overload 0% (within the 20% bound)',
    )
    expect(svc(all, 'payments').controller.message).toBe('Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4')
  })

  it('shows PreferSameNode zone and node hints (sessions) and PreferSameZone (catalog)', () => {
    const s = svc(all, 'sessions')
    expect(s.mode.path).toBe('traffic-distribution')
    expect(s.endpoints.every((e) => e.liveHints?.forNodes.length === 1 && e.liveHints.forNodes[0] === e.nodeName)).toBe(true)
    expect(s.zones.every((z) => z.kubeProxy.mode === 'PreferSameZone' && z.kubeProxy.nodesPreferSameNode === 2)).toBe(true)
    const c = svc(all, 'catalog')
    expect(c.endpoints.every((e) => e.liveHints?.forZones[0] === e.zone && e.liveHints.forNodes.length === 0)).toBe(true)
  })

  it('names no topology-aware routing `none`, as apply --mode, plan and simulate do (issue 19: was "no topology")', () => {
    const r = runCli(['explain', 'svc/inventory', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.stdout).toContain('Mode:        none (no topology-aware routing; hints removed)\n')
    expect(svc(all, 'inventory').mode.path).toBe('none')
  })
  it('ignores topology-mode: AUTO like upstream and says so (inventory)', () => {
    const s = svc(all, 'inventory')
    expect(s.mode.path).toBe('none')
    expect(s.controller.reason).toBe('TopologyNotRequested')
    expect(s.mode.warnings).toEqual([{rule: 'ignored-value', severity: 'error', message: expect.stringMatching(/AUTO.*did you mean "Auto"/)}])
  })

  it('shows drift and the kube-proxy fallback it causes (search)', () => {
    const s = svc(all, 'search')
    expect(s.findings).toEqual(['fallback', 'drift'])
    expect(s.drift.endpoints).toBe(4)
    expect(s.zones.map((z) => [z.name, z.liveHints, z.assigned, z.kubeProxy.reason, z.kubeProxyPredicted.mode])).toEqual([
      ['eu-west-1a', 4, 4, 'unhinted-ready-endpoint', 'PreferSameZone'],
      ['eu-west-1b', 4, 4, 'unhinted-ready-endpoint', 'PreferSameZone'],
      ['eu-west-1c', 0, 4, 'unhinted-ready-endpoint', 'PreferSameZone'],
    ])
    expect(s.traffic.inZoneSharePredicted).toBe(1)
    expect(s.traffic.inZoneShareLive).toBeCloseTo(1 / 3, 12)
    expect(s.advice.find((a) => a.code === 'drift')?.message).toBe(
      'The live hints of 4 endpoint(s) differ from what the controller writes at its next sync (search-rdxjk); the controller rewrites them when it next syncs the Service.',
    )
  })

  it('counts control-plane and NotReady nodes as ignored', () => {
    expect(all.cluster.zones.map((z) => [z.name, z.counted, z.ignored])).toEqual([
      ['eu-west-1a', 3, 1],
      ['eu-west-1b', 3, 1],
      ['eu-west-1c', 3, 2],
    ])
    expect(
      all.cluster.nodes
        .filter((n) => n.status !== 'counted')
        .map((n) => n.status)
        .sort(),
    ).toEqual(['control-plane', 'control-plane', 'control-plane', 'not-ready'])
  })

  it('validates against schema/explain.v1.json, with --per-node too', () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schema/explain.v1.json'), 'utf8'))
    const validate = new Ajv2020({allErrors: true, strict: false}).compile(schema)
    for (const report of [all, json(['explain', '-A', '--from-file', UNLABELED, '--per-node'])]) {
      const ok = validate(report)
      expect(validate.errors ?? []).toEqual([])
      expect(ok).toBe(true)
    }
    // The schema is not vacuous: a wrong field fails it.
    expect(validate({...all, kind: 'Other'})).toBe(false)
  })
})

describe('explain output formats', () => {
  it('table: a header, one row per zone and a TOTAL row; the controller verdict above; advice below', () => {
    const r = runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    // A snapshot without data-plane information: kube-proxy's rules, and the header says so.
    expect(lines[0]).toBe("Data plane: not recorded in the snapshot; kube-proxy's rules assumed")
    expect(lines[2]).toBe('Service shop/cart (IPv4)')
    expect(r.stdout).toContain('Controller:  hints dropped: TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints')
    const header = lines.find((l) => l.startsWith('ZONE'))!
    expect(header.split(/\s{3,}/)).toEqual([
      'ZONE',
      'NODES',
      'IGNORED',
      'CPU',
      'CPU SHARE',
      'READY',
      'DESIRED',
      'MIN',
      'MAX',
      'ASSIGNED',
      'OVERLOAD',
      'DONATED',
      'LIVE HINTS',
      'KUBE-PROXY',
    ])
    expect(lines.filter((l) => l.startsWith('eu-west-1'))).toHaveLength(3)
    expect(lines.some((l) => l.startsWith('TOTAL'))).toBe(true)
    expect(r.stdout).toContain('What to do:')
    // PreferSameZone would overload eu-west-1c by 22.2%: the advice says so instead of offering it (issue 19, finding 3).
    expect(lines).toContain('    PreferSameZone: 100% in-zone, but eu-west-1c overloaded by 22.2% (above the 20% bound)')
    expect(r.stdout).not.toContain('--mode PreferSameZone')
    expect(r.stdout).not.toMatch(/\x1b\[/)
  })

  it('issue 19: catalog (+100% in eu-west-1c) gets a step, each command alone on its line, and --exit-code 1', () => {
    const r = runCli(['explain', 'svc/catalog', '-n', 'shop', '--from-file', EXAMPLE, '--exit-code'])
    expect(r.code).toBe(1)
    const lines = r.stdout.split('\n')
    const at = lines.indexOf('      kubectl topology apply svc/catalog -n shop --mode Auto --yes')
    expect(at).toBeGreaterThan(0)
    expect(lines[at + 1]).toBe('    or, with kubectl alone:')
    expect(lines[at + 2]).toBe(
      `      kubectl patch service catalog -n shop --type=merge -p '{"metadata":{"annotations":{"service.kubernetes.io/topology-mode":"Auto"}},"spec":{"trafficDistribution":null}}'`,
    )
    expect(lines).toContain('    PreferSameZone after the next sync: eu-west-1c overloaded by 100% (above the 20% bound)')
    // checkout keeps what it has: no finding, no advice to change, exit 0.
    expect(runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '--exit-code']).code).toBe(0)
  })

  it("issue 19: explain and plan give the same recommendation at today's count (cart, catalog)", () => {
    for (const name of ['cart', 'catalog']) {
      const e = json(['explain', `svc/${name}`, '-n', 'shop', '--from-file', EXAMPLE]).services[0]!.recommendation
      const p = JSON.parse(runCli(['plan', `svc/${name}`, '-n', 'shop', '--from-file', EXAMPLE, '-o', 'json']).stdout).services[0].recommendation
      expect(p).toEqual(e)
    }
  })

  it('issue 19, finding 1: with the Auto annotation and trafficDistribution both set, the patch removes the annotation', () => {
    // A copy of the snapshot where cart (topology-mode Auto) also has spec.trafficDistribution: PreferSameZone.
    const snap = parseYaml(readFileSync(EXAMPLE, 'utf8')) as {services: {metadata: {name: string; namespace: string}; spec: Record<string, unknown>}[]}
    const cart = snap.services.find((x) => x.metadata.name === 'cart' && x.metadata.namespace === 'shop')!
    cart.spec.trafficDistribution = 'PreferSameZone'
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kt-advice-')), 'snap.json')
    writeFileSync(file, JSON.stringify(snap))
    const rec = json(['explain', 'svc/cart', '-n', 'shop', '--from-file', file]).services[0]!.recommendation!
    expect(rec.current).toBe('Auto')
    // Any step towards PreferSameZone clears the annotation (it wins over the field); the field is already set.
    const sz = rec.options.find((o) => o.mode === 'PreferSameZone')!
    expect(sz.worstOverload).toBeCloseTo(2 / 9, 9)
    expect(rec.reasons).toContain('PreferSameZone: 100% in-zone, but eu-west-1c overloaded by 22.2% (above the 20% bound)')
    for (const st of rec.steps) expect(st.command).not.toContain('--mode PreferSameZone')
  })

  it('wide: the zone table with more columns (as kubectl -o wide), then one row per endpoint, sorted, with live and predicted hints', () => {
    const r = runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '-o', 'wide'])
    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    const table = runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE]).stdout.split('\n')
    // Every column of the default table, in its order, then TRAFFIC, TARGET and the verdict after the sync.
    const header = lines.find((l) => l.startsWith('ZONE'))!.split(/\s{3,}/)
    expect(header).toEqual([...table.find((l) => l.startsWith('ZONE'))!.split(/\s{3,}/), 'TRAFFIC', 'TARGET', 'KUBE-PROXY AFTER SYNC'])
    expect(lines.filter((l) => l.startsWith('eu-west-1'))).toHaveLength(3)
    const rows = lines.filter((l) => /^10\./.test(l))
    expect(rows).toHaveLength(9)
    expect(lines.indexOf(rows[0]!)).toBeGreaterThan(lines.findIndex((l) => l.startsWith('TOTAL')))
    expect(rows.filter((l) => l.includes('-> eu-west-1c'))).toHaveLength(1)
    const zoneNode = rows.map((l) => l.split(/\s+/).slice(1, 3).reverse().join(' '))
    expect(zoneNode).toEqual([...zoneNode].sort())
    expect(r.stdout).toContain('PREDICTED HINTS')
  })

  it('NODES and IGNORED apart; node-local hints counted in nodes, said so (issue 19 finding 11)', () => {
    const r = runCli(['explain', 'svc/sessions', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.stdout).toMatch(/^eu-west-1c\s+3\s+2\s+23730m\s+33\.3%\s.*uses hints \(node-local on 2 nodes\)$/m)
    expect(r.stdout).toMatch(/^TOTAL\s+9\s+4\s+71190m/m)
    expect(r.stdout).not.toMatch(/\d\/\d\s|\+\d node-local/)
  })

  it('yaml equals json', () => {
    const y = runCli(['explain', '-A', '--from-file', EXAMPLE, '-o', 'yaml'])
    const j = runCli(['explain', '-A', '--from-file', EXAMPLE, '-o', 'json'])
    expect(parseYaml(y.stdout)).toEqual(JSON.parse(j.stdout))
  })

  it('json and yaml on a big Service (streamed in pieces): the texts JSON.stringify and yaml print', () => {
    // 3,000 endpoints on 300 nodes: far more than one piece of the JSON writer (src/render/json-stream.ts).
    const zones = ['z-a', 'z-b', 'z-c']
    const nodes = Array.from({length: 300}, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name: `n${i}`, labels: {'topology.kubernetes.io/zone': zones[i % 3]}},
      status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
    }))
    const slices = Array.from({length: 3}, (_, s) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {name: `big-${s}`, namespace: 'bench', labels: {'kubernetes.io/service-name': 'big', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'}},
      addressType: 'IPv4',
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
      endpoints: Array.from({length: 1000}, (_, j) => {
        const i = s * 1000 + j
        return {addresses: [`10.1.${i >> 8}.${i & 255}`], conditions: {ready: true}, nodeName: `n${i % 300}`, zone: zones[i % 3], hints: {forZones: [{name: zones[i % 3]}]}}
      }),
    }))
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {name: 'big', namespace: 'bench', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}},
      spec: {ports: [{port: 80}]},
    }
    const file = write('big-service.json', JSON.stringify({apiVersion: 'v1', kind: 'List', items: [...nodes, service, ...slices]}))
    const j = runCli(['explain', 'svc/big', '-n', 'bench', '--from-file', file, '-o', 'json'])
    expect(j.code).toBe(0)
    const report = JSON.parse(j.stdout) as ExplainReport
    expect(j.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`)
    expect(report.services).toHaveLength(1)
    expect(report.services[0]!.endpoints).toHaveLength(3000)
    expect(report.cluster.nodes).toHaveLength(300)
    const y = runCli(['explain', 'svc/big', '-n', 'bench', '--from-file', file, '-o', 'yaml'])
    expect(parseYaml(y.stdout)).toEqual(report)
    // Written by render/yaml-stream.ts: the bytes of the yaml package's text of the whole report.
    expect(y.stdout).toBe(yamlText(report, {aliasDuplicateObjects: false, lineWidth: 0}))
  })

  it('--no-headers drops the header row', () => {
    const r = runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '--no-headers'])
    expect(r.stdout).not.toMatch(/^ZONE/m)
  })

  it("--per-node: the mode each node's kube-proxy takes", () => {
    const r = json(['explain', 'svc/sessions', '-n', 'shop', '--from-file', EXAMPLE, '--per-node'])
    const nodes = r.services[0]!.nodes!
    expect(nodes.filter((n) => n.mode === 'PreferSameNode')).toHaveLength(6)
    expect(nodes.find((n) => n.name.startsWith('cp-'))!.mode).toBe('PreferSameZone')
  })

  it('colour: only with --color always (and never with NO_COLOR in auto mode)', () => {
    expect(runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE, '--color', 'always']).stdout).toMatch(/\x1b\[/)
    expect(runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE], {env: {NO_COLOR: '1'}}).stdout).not.toMatch(/\x1b\[/)
  })

  it('--traffic changes the overload and in-zone estimates', () => {
    const r = json(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '--traffic', 'eu-west-1a=0.6,eu-west-1b=0.2,eu-west-1c=0.2'])
    const s = r.services[0]!
    expect(s.traffic.model).toBe('custom')
    expect(s.zones[0]!.expectedOverload).toBeCloseTo((0.6 * 9) / 3 - 1, 12)
  })
})

describe('explain on examples/unlabeled-node.yaml: one node without a zone label', () => {
  it("refuses every Auto Service with upstream's message and names the node and the fix", () => {
    const r = json(['explain', '-n', 'shop', '-l', '', '--from-file', UNLABELED])
    const auto = r.services.filter((s) => s.mode.path === 'topology-mode-auto')
    expect(auto.length).toBeGreaterThan(0)
    for (const s of auto) {
      expect(s.controller.message).toBe('Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4')
      expect(s.zones.every((z) => z.liveHints === 0)).toBe(true)
    }
    expect(r.cluster.disablingNodes).toEqual([
      {
        name: 'ip-10-0-4-10.eu-west-1.compute.internal',
        status: 'no-zone-label',
        fix: 'label node ip-10-0-4-10.eu-west-1.compute.internal with topology.kubernetes.io/zone set to the zone it runs in',
      },
    ])
    const table = runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', UNLABELED])
    expect(table.stdout).toContain('ip-10-0-4-10.eu-west-1.compute.internal (no-zone-label)')
  })
})

describe('explain --exit-code', () => {
  it('exits 1 when a Service has a finding, 0 otherwise', () => {
    expect(runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE, '--exit-code']).code).toBe(1)
    expect(runCli(['explain', 'svc/search', '-n', 'shop', '--from-file', EXAMPLE, '--exit-code']).code).toBe(1)
    expect(runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '--exit-code']).code).toBe(0)
    expect(runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE]).code).toBe(0)
  })

  it('-o json (each Service written as it is explained): the same exit codes, after the whole document', () => {
    // A finding on the last Service only (search; checkout has none): known once it is written.
    const last = runCli(['explain', 'svc/search', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '-o', 'json', '--exit-code'])
    expect(last.code).toBe(1)
    expect((JSON.parse(last.stdout) as {services: {name: string}[]}).services.map((s) => s.name)).toEqual(['checkout', 'search'])
    const clean = runCli(['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '-o', 'json', '--exit-code'])
    expect(clean.code).toBe(0)
    expect((JSON.parse(clean.stdout) as {services: {name: string}[]}).services.map((s) => s.name)).toEqual(['checkout'])
  })
})

describe('explain arguments', () => {
  it.each([[['svc/checkout', 'svc/cart']], [['svc', 'checkout', 'cart']], [['service/checkout', 'services/cart']], [['checkout', 'cart']]])(
    '%j name the same two Services',
    (args) => {
      const r = json(['explain', ...args, '-n', 'shop', '--from-file', EXAMPLE])
      expect(r.services.map((s) => s.name)).toEqual(['cart', 'checkout'])
    },
  )

  it('-l selects by label; stdin with -', () => {
    const text = readFileSync(EXAMPLE, 'utf8')
    const r = runCli(['explain', '-A', '--from-file', '-', '-o', 'json'], {input: text})
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as ExplainReport).services.length).toBeGreaterThan(7)
  })
})

describe('bad input: one line, a documented exit code, no stack trace', () => {
  const oneLine = (r: {stderr: string}) => {
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^error: /)
    expect(r.stderr).not.toMatch(/\n\s+at /)
  }

  it('unknown Service: exit 4 with close names', () => {
    const r = runCli(['explain', 'svc/chekout', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.code).toBe(4)
    oneLine(r)
    expect(r.stderr).toContain('services "chekout" not found in namespace "shop"; did you mean "checkout"?')
  })

  it('unknown namespace: exit 4', () => {
    const r = runCli(['explain', 'svc/checkout', '-n', 'nope', '--from-file', EXAMPLE])
    expect(r.code).toBe(4)
    oneLine(r)
    expect(r.stderr).toContain('namespace "nope" not found')
  })

  it('malformed snapshot: exit 3 with file, line and column', () => {
    const p = write('bad.yaml', 'apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n    metadata: {name: a\n')
    const r = runCli(['explain', '-A', '--from-file', p])
    expect(r.code).toBe(3)
    oneLine(r)
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+/)
  })

  it('missing snapshot file: exit 3', () => {
    const r = runCli(['explain', '-A', '--from-file', path.join(tmp, 'nope.yaml')])
    expect(r.code).toBe(3)
    oneLine(r)
  })

  it('odd quantities: 1.5, 1500m and 2Ki count; garbage disables the node like zero CPU, named in the advice', () => {
    const base = readFileSync(EXAMPLE, 'utf8')
    const cpus = ['1.5', '1500m', '2Ki']
    let text = base
    let i = 0
    text = text.replace(/cpu: 7910m/g, (m) => (i++ < 3 ? `cpu: ${cpus[i - 1]}` : m))
    const ok = json(['explain', '-A', '--from-file', write('odd.yaml', text)])
    expect(ok.cluster.nodes.find((n) => n.milliCPU === 1500)).toBeDefined()
    expect(ok.cluster.nodes.find((n) => n.milliCPU === 2048000)).toBeDefined()
    const garbage = base.replace('cpu: 7910m', 'cpu: lots')
    const r = json(['explain', 'svc/checkout', '-n', 'shop', '--from-file', write('garbage.yaml', garbage)])
    expect(r.cluster.disablingNodes).toHaveLength(1)
    expect(r.cluster.nodes.find((n) => n.cpuError)?.cpuError).toContain('"lots"')
    expect(r.services[0]!.controller.message).toMatch(/^Insufficient Node information/)
  })

  it('no Service named: every Service of the namespace, like kubectl describe svc', () => {
    const r = json(['explain', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.services.map((s) => s.name)).toEqual(['cart', 'catalog', 'checkout', 'inventory', 'payments', 'search', 'sessions'])
  })

  it('bad flag values: exit 2', () => {
    for (const args of [['--traffic', 'a=x'], ['--kube-version', 'banana'], ['-o', 'xml'], ['--no-such-flag'], ['-l', 'a in (b']]) {
      const r = runCli(['explain', 'svc/cart', '-n', 'shop', '--from-file', EXAMPLE, ...args])
      expect(r.code, args.join(' ')).toBe(2)
      oneLine(r)
    }
  })

  it('no kubeconfig: exit 5 (never a silent localhost:8080)', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'kt-home-'))
    const r = runCli(['explain', 'svc/web'], {env: {KUBECONFIG: path.join(home, 'none'), HOME: home, KUBERNETES_SERVICE_HOST: undefined}})
    expect(r.code).toBe(5)
    oneLine(r)
    expect(r.stderr).toContain('no kubeconfig found')
  })

  it('no kubeconfig: --from-file is offered only by the commands that have it (issue 19 finding 11)', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'kt-home-'))
    const env = {KUBECONFIG: undefined, HOME: home, KUBERNETES_SERVICE_HOST: undefined}
    const offline = runCli(['explain', 'svc/web'], {env})
    expect(offline.stderr).toBe('error: no kubeconfig found: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot\n')
    for (const args of [
      ['snapshot', '-A'],
      ['watch', 'svc/web'],
    ]) {
      const r = runCli(args, {env})
      expect(r.code, args[0]).toBe(5)
      expect(r.stderr, args[0]).toBe('error: no kubeconfig found: set KUBECONFIG or pass --kubeconfig\n')
    }
  })

  it('unreachable server: exit 6, quickly', () => {
    const kc = write(
      'kubeconfig',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{name: 'c', cluster: {server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true}}],
        users: [{name: 'u', user: {token: 'secret-token-value'}}],
        contexts: [{name: 'x', context: {cluster: 'c', user: 'u'}}],
        'current-context': 'x',
      }),
    )
    const t = Date.now()
    const r = runCli(['explain', 'svc/web', '--kubeconfig', kc, '--request-timeout', '3s'])
    expect(Date.now() - t).toBeLessThan(15_000)
    expect(r.code).toBe(6)
    oneLine(r)
    expect(r.stderr).toContain('127.0.0.1:1')
    expect(r.stderr + r.stdout).not.toContain('secret-token-value')
  })

  it('--debug adds the stack trace', () => {
    const r = runCli(['explain', 'svc/chekout', '-n', 'shop', '--from-file', EXAMPLE, '--debug'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/\n\s+at /)
  })
})

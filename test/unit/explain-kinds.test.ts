// Every kind of Service and slice gets figures that add up and a plain statement of what
// applies (headless and ExternalName Services are not proxied; selector-less Services and
// slices of other writers are not the controller's; FQDN slices are used by nobody;
// endpoints without a zone get a row of their own; a zone without nodes routes nothing).
import {describe, expect, it} from 'vitest'
import {explain, type ServiceExplanation} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import {node, nodesIn, service, slice, spread, state} from './builders.js'
import type {Service} from '../../src/upstream/api/types.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const NODES = nodesIn(['a', 'b', 'c'])
const one = (st: ReturnType<typeof state>) => explain(st, st.services).services[0]!
const sum = (s: ServiceExplanation) => s.zones.reduce((a, z) => a + z.readyEndpoints, 0) + (s.withoutZone?.readyEndpoints ?? 0)
const withSpec = (svc: Service, spec: Partial<NonNullable<Service['spec']>>): Service => ({...svc, spec: {...svc.spec, ...spec}})

describe('explain: kinds of Services and slices', () => {
  it('headless: not proxied, no kube-proxy verdict, no in-zone estimate, a statement', () => {
    const svc = withSpec(service('h', {annotations: AUTO}), {clusterIP: 'None'})
    const s = one(state(NODES, [svc], [slice('h', spread({a: 2, b: 2, c: 2}))]))
    expect(s.applicability).toMatchObject({type: 'Headless', proxied: false})
    expect(s.applicability.statement).toMatch(/kube-proxy does not proxy it/)
    for (const z of s.zones) expect(z.kubeProxy).toMatchObject({fallback: false, reason: 'not-proxied', routedEndpoints: 0})
    expect(s.traffic.inZoneShareLive).toBeNull()
    expect(s.findings).not.toContain('fallback')
    // the controller still writes hints for a headless Service's slices
    expect(s.controller.hintsSet).toBe(true)
  })

  it('ExternalName: not managed, not proxied, no advice to change the mode', () => {
    const svc = withSpec(service('x', {annotations: AUTO}), {type: 'ExternalName', externalName: 'db.example.org'})
    const s = one(state(NODES, [svc], []))
    expect(s.mode.managedByController).toBe(false)
    expect(s.controller.message).toMatch(/ExternalName/)
    expect(s.applicability).toMatchObject({type: 'ExternalName', proxied: false})
    expect(s.applicability.statement).toContain('"db.example.org"')
    expect(s.advice.filter((a) => a.code === 'mode' || a.code === 'fallback')).toEqual([])
  })

  it('selector-less with hand-made slices: TOTAL, header and rows agree; no overload of -100%', () => {
    const svc = service('n', {annotations: AUTO, selector: null})
    const s = one(state(NODES, [svc], [slice('n', spread({a: 1, b: 1, c: 1}, true), {managed: false})]))
    expect(s.totals.readyEndpoints).toBe(3)
    expect(s.controller.totalReadyEndpoints).toBe(3)
    expect(sum(s)).toBe(3)
    for (const z of s.zones) expect(z.expectedOverload).toBeCloseTo(0, 9)
    expect(s.applicability.statement).toMatch(/no selector/)
    const text = renderExplain({...explain(state(NODES, [svc], [slice('n', spread({a: 1, b: 1, c: 1}, true), {managed: false})]), [svc])}, {format: 'table'})
    expect(text).toContain('3 ready endpoints;')
    expect(text).not.toContain('-100')
  })

  it("slices of another writer: counted in TOTAL, named, apart from the controller's", () => {
    const svc = service('f', {annotations: AUTO})
    const foreign = slice('f', spread({a: 1, b: 1, c: 1}), {managed: false, name: 'f-foreign'})
    foreign.metadata.labels!['endpointslice.kubernetes.io/managed-by'] = 'other-controller'
    const st = state(NODES, [svc], [slice('f', spread({a: 2, b: 2, c: 2})), foreign])
    const s = one(st)
    expect(s.totals.readyEndpoints).toBe(9)
    expect(s.controller.totalReadyEndpoints).toBe(6)
    expect(sum(s)).toBe(9)
    expect(s.applicability.slices).toEqual({managed: 1, foreign: [{manager: 'other-controller', slices: 1, readyEndpoints: 3}], fqdn: 0})
    expect(renderExplain(explain(st, st.services), {format: 'table'})).toContain("6 ready endpoints in the controller's slices, 3 in slices it does not manage")
  })

  it('FQDN slices: said to be used by nobody', () => {
    const svc = service('q', {annotations: AUTO})
    const fq = slice('q', [], {name: 'q-fqdn'})
    fq.addressType = 'FQDN'
    fq.endpoints = [{addresses: ['x.example.org'], conditions: {ready: true}}]
    const s = one(state(NODES, [svc], [slice('q', spread({a: 1, b: 1, c: 1})), fq]))
    expect(s.applicability.slices.fqdn).toBe(1)
    expect(s.applicability.statement).toMatch(/FQDN/)
    expect(s.totals.readyEndpoints).toBe(3)
  })

  it('endpoints without a zone: a row of their own, so the rows add up to TOTAL', () => {
    const svc = service('z', {annotations: AUTO})
    const st = state([...NODES, node('nz', null)], [svc], [slice('z', [...spread({a: 1, b: 1, c: 1}), {zone: null, node: 'nz'}])])
    const s = one(st)
    expect(s.withoutZone).toEqual({endpoints: 1, readyEndpoints: 1, nodes: 1})
    expect(sum(s)).toBe(s.totals.readyEndpoints)
    const text = renderExplain(explain(st, st.services), {format: 'table'})
    expect(text).toMatch(/<no zone>\s+0\s+1\s+1\s/)
    expect(text).toMatch(/TOTAL\s+3\s+1\s/)
  })

  // The explain property's counterexample at FC_SEED=-118145206 (shrunk by fast-check): an
  // endpoint with zone "" kept its live hint for zone-e in an unchanged slice. "" is no zone
  // (upstream's AddHints and SetNodes), but the rows took it for a hidden zone: it was donated
  // out of a row nobody sees (DONATED in 3, out 2) and missing from READY (3 rows, TOTAL 4).
  it('an endpoint with zone "": the "<no zone>" row, donated by no zone (FC_SEED=-118145206)', () => {
    const ready = {ready: true, serving: true, terminating: false}
    const managed = (name: string) => ({
      name,
      namespace: 'default',
      labels: {'kubernetes.io/service-name': 'svc-0', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
    })
    const ports = [{name: 'http', port: 8080, protocol: 'TCP'}]
    const nodeIn = (name: string, zone: string) => ({
      metadata: {name, labels: {'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone}},
      status: {
        allocatable: {cpu: '4'},
        conditions: [
          {type: 'MemoryPressure', status: 'False'},
          {type: 'Ready', status: 'True'},
        ],
      },
    })
    const st = {
      nodes: [nodeIn('node-0', 'zone-c'), nodeIn('node-1', 'zone-e')],
      services: [
        {metadata: {name: 'svc-0', namespace: 'default', annotations: AUTO}, spec: {ports: [{name: 'http', port: 80}], selector: {app: 'svc-0'}, ipFamilies: ['IPv4']}},
        {metadata: {name: 'svc-1', namespace: 'shop'}, spec: {ports: [{name: 'http', port: 80}], selector: {app: 'svc-1'}, externalIPs: ['192.0.2.10']}},
      ],
      endpointSlices: [
        {
          metadata: managed('svc-0-0'),
          addressType: 'IPv4',
          ports,
          endpoints: [
            {addresses: ['10.0.0.1'], conditions: ready, nodeName: 'node-0', zone: '', hints: {forZones: [{name: 'zone-e'}]}},
            {addresses: ['10.0.0.2'], conditions: ready, nodeName: 'node-0', zone: 'zone-e', hints: {forZones: [{name: 'zone-e'}]}},
          ],
        },
        {
          metadata: managed('svc-0-1'),
          addressType: 'IPv4',
          ports,
          endpoints: [
            {addresses: ['10.0.0.3'], conditions: ready, nodeName: 'node-0', zone: 'zone-e'},
            {addresses: ['10.0.0.4'], conditions: ready, nodeName: 'node-0', zone: 'zone-e', hints: null},
          ],
        },
      ],
    } as unknown as ReturnType<typeof state>
    const s = one(st)
    expect(s.controller.path).toBe('topology-mode-auto')
    expect(s.controller.hintsSet).toBe(true)
    expect(s.zones.map((z) => [z.name, z.readyEndpoints, z.donatedIn, z.donatedOut])).toEqual([
      ['zone-c', 0, 2, 0],
      ['zone-e', 3, 0, 2],
    ])
    expect(s.withoutZone).toEqual({endpoints: 1, readyEndpoints: 1, nodes: 0})
    expect(sum(s)).toBe(s.totals.readyEndpoints)
    expect(s.totals.donated).toBe(2)
    expect(s.endpoints.find((e) => e.addresses[0] === '10.0.0.1')!.donatedTo).toBeNull()
    const text = renderExplain(explain(st, st.services), {format: 'table'})
    expect(text).toMatch(/<no zone>\s+0\s+0\s+1\s/)
  })

  it('an endpoint with zone "" and the traffic estimate by address (an endpoint without one): in no zone, no crash', () => {
    const svc = service('e', {annotations: AUTO})
    const sl = slice('e', [...spread({a: 1, b: 1, c: 1}), {zone: '', node: 'a-0'}, {zone: 'a'}])
    sl.endpoints![4]!.addresses = []
    const s = one(state(NODES, [svc], [sl]))
    expect(s.withoutZone).toEqual({endpoints: 1, readyEndpoints: 1, nodes: 0})
    expect(sum(s)).toBe(s.totals.readyEndpoints)
    expect(s.traffic.inZoneShareLive).not.toBeNull()
  })

  it('a hint naming a zone without nodes: "no nodes", not "uses hints"', () => {
    const svc = service('g', {trafficDistribution: 'PreferSameZone'})
    const st = state(
      NODES,
      [svc],
      [
        slice('g', [
          {zone: 'a', hint: ['a']},
          {zone: 'd', node: 'd-0', hint: ['d']},
        ]),
      ],
    )
    const text = renderExplain(explain(st, st.services), {format: 'table'})
    const row = text.split('\n').find((l) => l.startsWith('d '))!
    expect(row).toMatch(/no nodes$/)
    expect(row).not.toMatch(/uses hints/)
  })

  it('dual-stack: one explanation per family, each adding up', () => {
    const svc = withSpec(service('d', {annotations: AUTO}), {ipFamilies: ['IPv4', 'IPv6']})
    const v6 = slice('d', spread({a: 1, b: 1, c: 1}), {name: 'd-v6'})
    v6.addressType = 'IPv6'
    v6.endpoints = v6.endpoints!.map((e, i) => ({...e, addresses: [`fd00::${i + 1}`]}))
    const r = explain(state(NODES, [svc], [slice('d', spread({a: 2, b: 2, c: 2})), v6]), [svc])
    expect(r.services.map((s) => [s.addressType, s.totals.readyEndpoints, sum(s)])).toEqual([
      ['IPv4', 6, 6],
      ['IPv6', 3, 3],
    ])
  })
})

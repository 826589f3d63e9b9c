import Ajv2020 from 'ajv/dist/2020.js'
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {clusterCliffs, serviceCliffs} from '../../src/explain/cliffs.js'
import {explain} from '../../src/explain/report.js'
import {nodesReport} from '../../src/explain/nodes-report.js'
import {diffFrames, watchFrame} from '../../src/watch/model.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {node, nodesIn, service, slice, spread, state} from './builders.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const cliffsOf = (st: ClusterState) => {
  const r = explain(st, st.services, {kubeVersion: '1.36'})
  return serviceCliffs(r.services[0]!, st.nodes)
}

describe('serviceCliffs', () => {
  it('9 endpoints in 3 equal zones: one fewer (8) is refused, one more (10) is not', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
    const cliffs = cliffsOf(st)
    expect(cliffs.map((c) => [c.kind, c.effect, c.endpoints])).toEqual([['endpoint-fewer', 'hints-refused', 8]])
    expect(cliffs[0]!.message).toBe(
      '8 ready endpoints (one fewer) and the controller drops the hints: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones)',
    )
  })
  it('a refused count one step from acceptance is reported as a way back', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 4, 'zone-b': 4, 'zone-c': 3}))])
    expect(cliffsOf(st).map((c) => [c.kind, c.effect, c.endpoints])).toEqual([
      ['endpoint-fewer', 'hints-set', 10],
      ['endpoint-more', 'hints-set', 12],
    ])
  })
  it('losing the only node of a zone (2 zones) refuses hints; so does losing a node that leaves 5 endpoints on 50/50 CPU', () => {
    const nodes = [node('a-0', 'zone-a'), node('a-1', 'zone-a'), node('b-0', 'zone-b')]
    const eps = [
      {zone: 'zone-a', node: 'a-0', hint: ['zone-a']},
      {zone: 'zone-a', node: 'a-1', hint: ['zone-a']},
      {zone: 'zone-a', node: 'a-1', hint: ['zone-b']},
      {zone: 'zone-b', node: 'b-0', hint: ['zone-b']},
      {zone: 'zone-b', node: 'b-0', hint: ['zone-b']},
      {zone: 'zone-b', node: 'b-0', hint: ['zone-b']},
    ]
    const st = state(nodes, [service('web', {annotations: AUTO})], [slice('web', eps)])
    const lost = cliffsOf(st).filter((c) => c.kind === 'node-lost')
    expect(lost.map((c) => [c.nodes, c.endpoints])).toEqual([
      [['a-0'], 5],
      [['b-0'], 3],
    ])
    expect(lost[0]!.message).toBe(
      'losing node a-0 (zone-a) with its 1 ready endpoint(s) and the controller drops the hints: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (5 endpoints, 2 zones)',
    )
    expect(lost[1]!.message).toBe(
      'losing node b-0 (zone-b) with its 3 ready endpoint(s) and the controller drops the hints: Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
    )
  })
  it('trafficDistribution: a zone with one ready endpoint is one endpoint from falling back', () => {
    const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', spread({'zone-a': 2, 'zone-b': 2, 'zone-c': 1}, true))])
    expect(cliffsOf(st).map((c) => [c.kind, c.zone])).toEqual([['zone-last-endpoint', 'zone-c']])
  })
})

describe('clusterCliffs and nodesReport', () => {
  it('a zone held by one node is a cluster-wide cliff when only 2 zones exist', () => {
    const nodes = [node('a-0', 'zone-a'), node('a-1', 'zone-a'), node('b-0', 'zone-b')]
    expect(clusterCliffs(nodes).map((c) => [c.effect, c.nodes])).toEqual([['hints-disabled-cluster', ['b-0']]])
    expect(clusterCliffs(nodesIn(ZONES))).toEqual([])
  })
  it('reports counted and ignored nodes with reasons, the disabling nodes and the fix', () => {
    const nodes = [...nodesIn(ZONES), node('cp', 'zone-a', {controlPlane: true}), node('down', 'zone-b', {ready: false}), node('bare', null), node('nocpu', 'zone-c', {cpu: '0'})]
    const r = nodesReport({nodes})
    expect(r.auto).toMatchObject({possible: false, reason: 'disabling-nodes'})
    expect(r.totals).toEqual({nodes: 7, counted: 3, ignored: {'control-plane': 1, 'not-ready': 1, 'no-zone-label': 1, 'no-cpu': 1}, cpuMilli: 12000})
    expect(r.disablingNodes).toEqual([
      {name: 'bare', status: 'no-zone-label', fix: 'label node bare with topology.kubernetes.io/zone set to the zone it runs in'},
      {name: 'nocpu', status: 'no-cpu', fix: 'give node nocpu allocatable CPU (status.allocatable.cpu is zero or missing)'},
    ])
    const schema = JSON.parse(readFileSync(new URL('../../schema/nodes.v1.json', import.meta.url), 'utf8'))
    const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(schema)
    expect(validate(JSON.parse(JSON.stringify(r)))).toBe(true)
    expect(validate.errors ?? []).toEqual([])
  })
  it('single zone and no nodes', () => {
    expect(nodesReport({nodes: nodesIn(['zone-a'], 2)}).auto.reason).toBe('single-zone')
    expect(nodesReport({nodes: []}).auto.reason).toBe('no-counted-nodes')
    expect(nodesReport({nodes: nodesIn(ZONES)}).auto).toMatchObject({possible: true, reason: 'ok'})
    expect(nodesReport({nodes: [], nodesReadable: false}).auto.reason).toBe('nodes-unreadable')
  })
})

describe('watch model: diffFrames', () => {
  const svc = service('web', {annotations: AUTO})
  const base = state(nodesIn(ZONES), [svc], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
  const f0 = watchFrame(base, 'default', 'web', {kubeVersion: '1.36'})

  it('the first frame has no changes; an identical frame neither', () => {
    expect(diffFrames(null, f0)).toEqual([])
    expect(diffFrames(f0, watchFrame(base, 'default', 'web', {kubeVersion: '1.36'}))).toEqual([])
  })
  it('an unlabeled node drops the hints for the Service', () => {
    const next = watchFrame({...base, nodes: [...base.nodes, node('bare', null)]}, 'default', 'web', {kubeVersion: '1.36'})
    const changes = diffFrames(f0, next)
    // The advice changes too: Auto is refused (no CPU shares), the advisor names another mode.
    expect(changes.map((c) => c.kind)).toEqual(['node-added', 'advice', 'hints-dropped', 'zone-share', 'zone-share', 'zone-share', 'drift', 'cliff-cleared'])
    expect(changes[0]).toEqual({kind: 'node-added', tone: 'bad', zone: null, message: 'node bare added (no zone label: disables hints for every Service)'})
    expect(changes[2]!.message).toBe(
      'hints dropped: TopologyAwareHintsDisabled: Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4',
    )
    expect(changes[3]!.message).toBe('zone-a: CPU share 33.3% -> -')
  })
  it('an endpoint fewer: ready count shifts, the controller refuses, live hints still there (drift)', () => {
    const fewer = state(base.nodes, [svc], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 2}, true))])
    const changes = diffFrames(f0, watchFrame(fewer, 'default', 'web', {kubeVersion: '1.36'}))
    expect(changes.map((c) => c.message)).toEqual([
      'hints dropped: TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones), addressType: IPv4',
      'zone-c: ready endpoints 3 -> 2',
      'zone-c: live hints 3 -> 2',
      '8 endpoint(s) differ from what the controller writes at its next sync',
      'cliff: 7 ready endpoints (one fewer) and the controller sets hints again',
      'cliff: 9 ready endpoints (one more) and the controller sets hints again',
      'no longer on the edge: 8 ready endpoints (one fewer) and the controller drops the hints: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones)',
    ])
  })
  it('a zone falling back and the Service being deleted', () => {
    const td = service('web', {trafficDistribution: 'PreferSameZone'})
    const a = state(nodesIn(ZONES), [td], [slice('web', spread({'zone-a': 1, 'zone-b': 1, 'zone-c': 1}, true))])
    const b = state(nodesIn(ZONES), [td], [slice('web', spread({'zone-a': 1, 'zone-b': 1}, true))])
    const fa = watchFrame(a, 'default', 'web')
    const fb = watchFrame(b, 'default', 'web')
    expect(diffFrames(fa, fb).filter((c) => c.kind === 'fallback')).toEqual([
      {kind: 'fallback', tone: 'bad', zone: 'zone-c', message: 'zone-c: kube-proxy falls back to every endpoint (no-hint-for-zone)'},
    ])
    const gone = watchFrame({...b, services: [], endpointSlices: []}, 'default', 'web')
    expect(gone.exists).toBe(false)
    expect(diffFrames(fb, gone).map((c) => c.kind)).toContain('service-deleted')
  })
})

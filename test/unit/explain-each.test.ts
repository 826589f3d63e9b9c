// explainEach / explainAdvisedEach (explain -A -o json's engine): the report explain() and
// explainAdvised() return, in two parts, each Service explained and advised only when the
// iteration reaches it.
import {describe, expect, it} from 'vitest'
import {explainAdvised, explainAdvisedEach} from '../../src/advise/report.js'
import {explain, explainEach} from '../../src/explain/report.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {EndpointSlice} from '../../src/upstream/api/types.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const ZONES = ['zone-a', 'zone-b', 'zone-c']

function cluster(): ClusterState {
  // dual: an IPv4 and an IPv6 slice, so two explanations of one Service in a row.
  const v6: EndpointSlice = {...slice('dual', spread({'zone-a': 2, 'zone-b': 2}), {name: 'dual-v6'}), addressType: 'IPv6'}
  v6.endpoints = v6.endpoints!.map((e, i) => ({...e, addresses: [`fd00::${i + 1}`]}))
  const dual = service('dual', {annotations: AUTO})
  dual.spec = {...dual.spec, ipFamilies: ['IPv4', 'IPv6']}
  return state(
    nodesIn(ZONES, 2),
    [service('web', {annotations: AUTO}), dual, service('plain', {namespace: 'other'}), service('few', {trafficDistribution: 'PreferSameZone'})],
    [
      slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true)),
      slice('dual', spread({'zone-a': 2, 'zone-b': 2})),
      v6,
      slice('plain', spread({'zone-a': 1, 'zone-b': 1}), {namespace: 'other'}),
      slice('few', spread({'zone-a': 1})),
    ],
  )
}

describe('explainEach', () => {
  it('gives the same report as explain(), and explainAdvisedEach the same as explainAdvised(), keys in the same order', () => {
    const st = cluster()
    const {head, services} = explainEach(st, st.services)
    const whole = explain(st, st.services)
    expect(JSON.stringify({...head, services: [...services]})).toBe(JSON.stringify(whole))
    const advised = explainAdvisedEach(st, st.services)
    const got = {...advised.head, services: [...advised.services]}
    const want = explainAdvised(st, st.services)
    expect(JSON.stringify(got)).toBe(JSON.stringify(want))
    // Both address types of the dual-stack Service, one recommendation object between them.
    const dual = got.services.filter((s) => s.name === 'dual')
    expect(dual.map((s) => s.addressType)).toEqual(['IPv4', 'IPv6'])
    expect(dual[0]!.recommendation).toBeDefined()
    expect(dual[1]!.recommendation).toBe(dual[0]!.recommendation)
    expect(got.services).toHaveLength(5)
  })

  it('explains a Service only when the iteration reaches it', () => {
    const st = cluster()
    // Each explanation reads the state's Events once: count the reads.
    let reads = 0
    const counted = new Proxy(st, {
      get(target, key, receiver) {
        if (key === 'events') reads++
        return Reflect.get(target, key, receiver)
      },
    })
    const {head, services} = explainAdvisedEach(counted, st.services)
    expect(head.kind).toBe('TopologyExplanation')
    expect(reads).toBe(0)
    const it = services[Symbol.iterator]()
    expect(it.next().value?.name).toBe('web')
    const afterFirst = reads
    expect(afterFirst).toBeGreaterThan(0)
    expect(it.next().value?.name).toBe('dual')
    expect(reads).toBeGreaterThan(afterFirst)
  })
})

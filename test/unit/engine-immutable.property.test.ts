// The engine never writes into its input (issue 23: `cloneSlice` shares everything but the
// endpoint objects, whose `hints` field is the only thing the upstream port writes). On random
// clusters, deep-frozen, the advisor (explain's engine once per mode: Auto, the
// trafficDistribution values, none) runs without a single write into a frozen object: in an ES
// module (strict mode) such a write throws a TypeError. Fixed seed: fast-check prints it with
// the counterexample on failure.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {explainAdvised} from '../../src/advise/report.js'
import {cloneSlice} from '../../src/upstream/endpointslice/topologycache/utils.js'
import type {EndpointSlice} from '../../src/upstream/api/types.js'
import {clusterArb} from './explain-arbitrary.js'

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k])
  }
  return v
}

describe('the engine does not write into its input', () => {
  it('explainAdvised on deep-frozen random clusters (150 clusters, seed 23)', () => {
    fc.assert(
      fc.property(clusterArb, fc.constantFrom('1.30', '1.33', '1.36'), ({state}, kubeVersion) => {
        const frozen = deepFreeze(structuredClone(state))
        expect(() => explainAdvised(frozen, frozen.services, {kubeVersion}, 0.2)).not.toThrow()
      }),
      {numRuns: 150, seed: 23},
    )
  })

  it('cloneSlice: a new slice and new endpoints; writing a hint into the copy leaves the original as it was', () => {
    const slice: EndpointSlice = deepFreeze({
      metadata: {name: 's', namespace: 'n'},
      addressType: 'IPv4',
      endpoints: [
        {addresses: ['10.0.0.1'], zone: 'a', hints: {forZones: [{name: 'a'}]}},
        {addresses: ['10.0.0.2'], zone: 'b'},
      ],
    } as EndpointSlice)
    const copy = cloneSlice(slice)
    expect(copy).toEqual(slice)
    expect(copy).not.toBe(slice)
    expect(copy.endpoints).not.toBe(slice.endpoints)
    copy.endpoints![0]!.hints = {forZones: [{name: 'b'}]}
    delete copy.endpoints![1]!.zone
    expect(slice.endpoints![0]!.hints).toEqual({forZones: [{name: 'a'}]})
    expect(slice.endpoints![1]!.zone).toBe('b')
    // A key named "__proto__" (JSON.parse makes it an own property) stays a plain own key.
    const odd = JSON.parse('{"metadata":{"name":"x"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.3"],"__proto__":{"zone":"z"}}]}') as EndpointSlice
    const c2 = cloneSlice(odd)
    expect(Object.keys(c2.endpoints![0]!)).toEqual(['addresses', '__proto__'])
    expect((c2.endpoints![0] as {zone?: string}).zone).toBeUndefined()
  })
})

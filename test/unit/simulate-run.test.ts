// simulate/run.ts: what-ifs per Service, on literals.
import {describe, expect, it} from 'vitest'
import {applyWhatIfs, simulateServices, whatIfLabels, type WhatIfs} from '../../src/simulate/run.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const none: WhatIfs = {withoutZones: [], drain: [], addNodes: []}

describe('whatIfLabels', () => {
  it('in the order simulate reports them', () => {
    expect(whatIfLabels(none)).toEqual([])
    expect(whatIfLabels({withoutZones: ['zone-a', 'zone-b'], drain: ['n1'], drainSelector: 'pool=spot', addNodes: [{zone: 'zone-c', cpu: '4', name: 'x'}], replicas: 6})).toEqual([
      'without zone zone-a',
      'without zone zone-b',
      'drain n1',
      'drain nodes pool=spot',
      'add node zone=zone-c,cpu=4',
      'replicas 6',
    ])
  })
})

describe('applyWhatIfs / simulateServices', () => {
  const web = service('web')
  const s = state(nodesIn(['zone-a', 'zone-b', 'zone-c']), [web], [slice('web', spread({'zone-a': 2, 'zone-b': 2, 'zone-c': 2}))])

  it('no what-if: the state as is', () => {
    expect(applyWhatIfs(s, web, none)).toBe(s)
  })

  it('a lost zone: its nodes and endpoints are gone', () => {
    const after = applyWhatIfs(s, web, {...none, withoutZones: ['zone-c']})
    expect(after.nodes.map((n) => n.metadata.name)).toEqual(['zone-a-0', 'zone-b-0'])
    const [report] = simulateServices(s, [web], {strategies: ['PreferSameZone']}, {...none, withoutZones: ['zone-c']}, {disruption: false, onWarning: () => {}})
    expect(report!.input.readyEndpoints).toBe(4)
    expect(report!.input.zones).toEqual(['zone-a', 'zone-b'])
  })

  it('rollout warnings are reported as they come; disruption is added when asked', () => {
    const warnings: string[] = []
    const reports = simulateServices(s, [web], {strategies: ['PreferSameZone']}, none, {
      rollout: () => ({warning: 'no workload'}),
      disruption: true,
      onWarning: (w) => warnings.push(w),
    })
    expect(warnings).toEqual(['no workload'])
    expect(reports[0]!.rollout).toBeUndefined()
    expect(reports[0]!.disruption!.map((d) => d.zone)).toEqual(['zone-a', 'zone-b', 'zone-c'])
  })
})

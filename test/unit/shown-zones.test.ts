// shownZones (src/explain/node-facts.ts): the zones a Service's rows show, with the cluster's part
// shared between Services. A Service whose endpoints name another zone gets its own set; the
// shared one is never changed by it.
import {describe, expect, it} from 'vitest'
import {nodeFacts, shownZones} from '../../src/explain/node-facts.js'
import type {ZoneStats} from '../../src/explain/report-types.js'
import {node} from './builders.js'

const stat = (id: number, named: boolean): ZoneStats => ({id, named, ready: 1, assigned: 0, liveHints: 0, donatedIn: 0, donatedOut: 0})

describe('shownZones', () => {
  const {nodeIndex} = nodeFacts([node('n1', 'zone-c'), node('n2', 'zone-a'), node('n3', null)])
  const ratios = {'zone-b': 0.5, 'zone-c': 0.5}

  it('the ratios zones, then the Nodes, then the zones the endpoints name; sorted beside', () => {
    const z = shownZones(ratios, nodeIndex, new Map([['zone-d', stat(0, true)]]))
    expect([...z.names]).toEqual(['zone-b', 'zone-c', 'zone-a', 'zone-d'])
    expect(z.sorted).toEqual(['zone-a', 'zone-b', 'zone-c', 'zone-d'])
  })

  it('a zone an endpoint names does not stay for the next Service; one not named (only hinted) is not shown', () => {
    const first = shownZones(ratios, nodeIndex, new Map([['zone-x', stat(0, true)]]))
    expect(first.sorted).toContain('zone-x')
    const next = shownZones(
      ratios,
      nodeIndex,
      new Map([
        ['zone-y', stat(0, false)],
        ['zone-a', stat(1, true)],
      ]),
    )
    expect([...next.names]).toEqual(['zone-b', 'zone-c', 'zone-a'])
    expect(next.sorted).toEqual(['zone-a', 'zone-b', 'zone-c'])
    // Other ratios (Nodes unreadable: none) on the same Nodes: the Nodes' zones only.
    expect([...shownZones(null, nodeIndex, new Map()).names]).toEqual(['zone-c', 'zone-a'])
    expect([...shownZones(ratios, nodeIndex, new Map()).names]).toEqual(['zone-b', 'zone-c', 'zone-a'])
  })
})

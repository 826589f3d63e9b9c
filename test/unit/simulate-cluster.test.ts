import {describe, expect, it} from 'vitest'
import {rowToClusterState} from '../../src/simulate/dataset-run.js'
import {simulateService, type SimulateOptions, type StrategyResult} from '../../src/simulate/simulate.js'
import {topologyKeysReach, validateTopologyKeys} from '../../src/simulate/strategies/topology-keys.js'
import {rollout} from '../../src/simulate/rollout.js'
import {addNode, drain, Placer, scaleReplicas, withoutZone} from '../../src/simulate/whatif.js'
import type {SimNode, SimEndpoint} from '../../src/simulate/strategies/cluster.js'

const cluster = (nodes: number[], eps: number[]) => rowToClusterState({name: 't', zones: nodes.map((k, i) => ({name: `zone-${'abc'[i]}`, nodes: k, endpoints: eps[i]!}))})
const run = (state: ReturnType<typeof cluster>, strategies: SimulateOptions['strategies'], extra: SimulateOptions = {}) =>
  simulateService(state, state.services[0]!, {strategies, ...extra}).strategies
const by = (rs: StrategyResult[], s: string) => rs.find((r) => r.strategy === s)!

describe('hint strategies on a cluster', () => {
  it('Auto: 4/3/2 endpoints, equal CPU -> hints hold with one donation, 8/9 in-zone', () => {
    const [auto] = run(cluster([1, 1, 1], [4, 3, 2]), ['Auto'])
    expect(auto!.fallback).toBeNull()
    expect(auto!.inZoneTraffic).toBeCloseTo(8 / 9, 12)
    expect(auto!.maxOverload).toBeCloseTo(0, 12)
    expect(auto!.zones.find((z) => z.zone === 'zone-c')!.serves).toEqual({'zone-a': 1, 'zone-c': 2})
  })
  it('Auto refuses 4/4/3 (sum of minimums 12 > 11): every zone falls back, like none', () => {
    const rs = run(cluster([1, 1, 1], [4, 4, 3]), ['Auto', 'none'])
    expect(by(rs, 'Auto').fallback).toMatch(/Unable to allocate minimum required endpoints/)
    expect(by(rs, 'Auto').fallbackZones).toEqual(['zone-a', 'zone-b', 'zone-c'])
    expect(by(rs, 'Auto').score).toBeCloseTo(by(rs, 'none').score!, 10)
  })
  it('same-zone: zones keep their own endpoints; a zone without any falls back to all', () => {
    const [sz] = run(cluster([1, 1, 1], [3, 3, 0]), ['PreferSameZone'])
    expect(sz!.fallbackZones).toEqual(['zone-c'])
    // a and b: 1/3 each in-zone; c: sends to all 6, none local
    expect(sz!.inZoneTraffic).toBeCloseTo(2 / 3, 12)
  })
  it('same-node: a node with an endpoint keeps its traffic on the node', () => {
    const [sn] = run(cluster([2, 1, 1], [2, 1, 1]), ['PreferSameNode'])
    expect(sn!.inZoneTraffic).toBeCloseTo(1, 12)
    expect(sn!.fallbackZones).toEqual([])
  })
})

describe('KEP-536 topologyKeys', () => {
  const node = (name: string, zone: string, labels: Record<string, string> = {}): SimNode => ({
    name,
    zone,
    milliCPU: 1000,
    counted: true,
    schedulable: true,
    labels: {'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, ...labels},
  })
  const ep = (address: string, nodeName: string, zone: string): SimEndpoint => ({address, nodeName, zone, ready: true})
  const nodes = [node('n1', 'a', {rack: 'r1'}), node('n2', 'a', {rack: 'r2'}), node('n3', 'b')]
  const eps = [ep('10.0.0.1', 'n1', 'a'), ep('10.0.0.2', 'n3', 'b')]
  it('hostname, then zone: n1 has a local endpoint, n2 uses its zone, n3 its own', () => {
    const r = topologyKeysReach(nodes, eps, ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'])
    expect(r.clients.map((c) => [c.node, c.matchedKey, c.endpoints])).toEqual([
      ['n1', 'kubernetes.io/hostname', [0]],
      ['n2', 'topology.kubernetes.io/zone', [0]],
      ['n3', 'kubernetes.io/hostname', [1]],
    ])
  })
  it('hard requirement: no key matches and no "*" -> no backends; "*" last -> everything', () => {
    const hard = topologyKeysReach(nodes, eps, ['kubernetes.io/hostname'])
    expect(hard.clients.map((c) => c.matchedKey)).toEqual(['kubernetes.io/hostname', null, 'kubernetes.io/hostname'])
    const soft = topologyKeysReach(nodes, eps, ['kubernetes.io/hostname', '*'])
    expect(soft.clients.map((c) => [c.matchedKey, c.endpoints.length])).toEqual([
      ['kubernetes.io/hostname', 1],
      ['*', 2],
      ['kubernetes.io/hostname', 1],
    ])
  })
  it('a rack key matches no endpoint: endpoint topology carried only hostname, zone and region (podToEndpoint)', () => {
    // n1 and its endpoint share rack r1, but the controller never copied "rack" into the endpoint's topology
    const r = topologyKeysReach(nodes, eps, ['rack', '*'])
    expect(r.clients.map((c) => [c.matchedKey, c.endpoints.length])).toEqual([
      ['*', 2],
      ['*', 2],
      ['*', 2],
    ])
    expect(r.keysNeverMatching).toEqual(['rack'])
    expect(topologyKeysReach(nodes, eps, ['rack']).clients.map((c) => c.matchedKey)).toEqual([null, null, null])
  })
  it('--per-node: each client node with the key that matched and the addresses it routes to', () => {
    const state = cluster([2, 1, 1], [1, 1, 1])
    const [tk] = run(state, ['topology-keys'], {topologyKeys: ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'], perNode: true})
    const eps = Object.fromEntries(state.endpointSlices.flatMap((s) => (s.endpoints ?? []).map((e) => [e.nodeName, e.addresses[0]])))
    expect(tk!.clients).toEqual([
      {node: 'zone-a-node-1', zone: 'zone-a', matchedKey: 'kubernetes.io/hostname', endpoints: [eps['zone-a-node-1']]},
      {node: 'zone-a-node-2', zone: 'zone-a', matchedKey: 'topology.kubernetes.io/zone', endpoints: [eps['zone-a-node-1']]},
      {node: 'zone-b-node-1', zone: 'zone-b', matchedKey: 'kubernetes.io/hostname', endpoints: [eps['zone-b-node-1']]},
      {node: 'zone-c-node-1', zone: 'zone-c', matchedKey: 'kubernetes.io/hostname', endpoints: [eps['zone-c-node-1']]},
    ])
    expect(run(state, ['topology-keys'], {topologyKeys: ['kubernetes.io/hostname']})[0]!.clients).toBeUndefined()
  })
  it('validation: "*" only last, at most 16 keys, valid label keys', () => {
    expect(validateTopologyKeys(['*', 'kubernetes.io/hostname'])).toMatch(/last/)
    expect(validateTopologyKeys(Array.from({length: 17}, (_, i) => `k${i}`))).toMatch(/at most 16/)
    expect(validateTopologyKeys(['bad key'])).toMatch(/not a valid label key/)
    expect(validateTopologyKeys(['example.com/rack', '*'])).toBeNull()
  })
  it('on a cluster: a node matching no key makes the result invalid with unserved traffic', () => {
    const state = cluster([2, 1, 1], [1, 1, 1])
    const [tk] = run(state, ['topology-keys'], {topologyKeys: ['kubernetes.io/hostname']})
    expect(tk!.valid).toBe(false)
    expect(tk!.score).toBeNull()
    expect(tk!.unservedTraffic).toBeCloseTo(0.25, 12)
    expect(tk!.zones.find((z) => z.zone === 'zone-a')!.nodesWithoutBackends).toEqual(['zone-a-node-2'])
  })
})

describe('what-ifs are pure and combine', () => {
  const base = cluster([2, 2, 2], [4, 4, 4])
  const svc = base.services[0]!
  it('without-zone removes the zone; the input is untouched', () => {
    const before = JSON.stringify(base)
    const s = withoutZone(base, 'zone-c')
    expect(JSON.stringify(base)).toBe(before)
    expect(simulateService(s, svc, {strategies: ['none']}).input.endpointsByZone).toEqual({'zone-a': 4, 'zone-b': 4})
  })
  it('without-zone copies only what it changes: the Nodes and endpoints it keeps are shared, and placing into it leaves the input alone', () => {
    const before = JSON.stringify(base)
    const s = withoutZone(base, 'zone-c')
    // No deep copy of the cluster per lost zone (plan loses every zone of every Service).
    expect(s.nodes[0]).toBe(base.nodes[0])
    expect(s.endpointSlices[0]!.endpoints![0]).toBe(base.endpointSlices[0]!.endpoints![0])
    expect(s.endpointSlices[0]).not.toBe(base.endpointSlices[0])
    const placer = new Placer(s, svc)
    for (let i = 0; i < 4; i++) expect(placer.add({ready: true})).toBe(true)
    expect(JSON.stringify(base)).toBe(before)
    expect(simulateService(s, svc, {strategies: ['none']}).input.endpointsByZone).toEqual({'zone-a': 6, 'zone-b': 6})
  })
  it("drain recreates the node's pods in the zone with the fewest (here its own zone, on the other node)", () => {
    const s = drain(base, svc, {nodes: ['zone-a-node-1']})
    expect(simulateService(s, svc, {strategies: ['none']}).input.endpointsByZone).toEqual({'zone-a': 4, 'zone-b': 4, 'zone-c': 4})
    const onDrained = s.endpointSlices.flatMap((sl) => sl.endpoints ?? []).filter((e) => e.nodeName === 'zone-a-node-1')
    expect(onDrained).toHaveLength(0)
    expect(s.nodes.find((n) => n.metadata.name === 'zone-a-node-1')!.spec?.unschedulable).toBe(true)
  })
  it("replicas removes from the most crowded node, then zone, then by name (plan's model); add-node shifts the CPU share", () => {
    const s = scaleReplicas(base, svc, 7)
    expect(simulateService(s, svc, {strategies: ['none']}).input.endpointsByZone).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 3})
    const t = addNode(base, {zone: 'zone-a', cpu: '2'})
    expect(simulateService(t, svc, {strategies: ['none']}).input.trafficShare['zone-a']).toBeCloseTo(0.5, 12)
  })
  it('rollout with maxSurge 25%, maxUnavailable 0 never drops below the desired ready count', () => {
    const steps = rollout(base, svc, {maxSurge: '25%', maxUnavailable: 0})
    for (const st of steps) expect(st.oldPods + st.newReady).toBeGreaterThanOrEqual(12)
    expect(steps.at(-1)!.oldPods).toBe(0)
    expect(steps.at(-1)!.newReady).toBe(12)
  })
})

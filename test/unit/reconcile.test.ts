import {describe, expect, it} from 'vitest'
import {clearedSlices, predictHints, type PredictionMode} from '../../src/upstream/endpointslice/reconciler.js'
import {setNodes} from '../../src/upstream/endpointslice/topologycache/topologycache.js'
import {
  ANNOTATION_TOPOLOGY_AWARE_HINTS as HINTS,
  ANNOTATION_TOPOLOGY_MODE as MODE,
  type AddressType,
  type Endpoint,
  type EndpointSlice,
  type Node,
  type Service,
} from '../../src/upstream/api/types.js'
import {features, type Features} from '../../src/upstream/features.js'

// ---- fixtures -------------------------------------------------------------------------------

function node(name: string, zone: string, cpu = '100m'): Node {
  return {
    metadata: {name, labels: {'topology.kubernetes.io/zone': zone}},
    status: {conditions: [{type: 'Ready', status: 'True'}], allocatable: {cpu}},
  }
}

interface Pod {
  name: string
  ip: string
  node: string
  zone: string
  ready?: boolean
}

/** Upstream podToEndpoint for a running, ready pod (ready = serving = true, not terminating). */
function podToEndpoint(p: Pod): Endpoint {
  const ready = p.ready ?? true
  return {
    addresses: [p.ip],
    conditions: {ready, serving: ready, terminating: false},
    nodeName: p.node,
    zone: p.zone,
    targetRef: {kind: 'Pod', namespace: 'testing', name: p.name},
  }
}

function mkSlice(name: string, pods: Pod[], addressType: AddressType = 'IPv4'): EndpointSlice {
  return {
    metadata: {
      name,
      namespace: 'testing',
      labels: {'kubernetes.io/service-name': 'foo', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
    },
    addressType,
    endpoints: pods.map(podToEndpoint),
    ports: [{name: '', port: 80, protocol: 'TCP'}],
  }
}

function service(annotations?: Record<string, string>, trafficDistribution?: string): Service {
  const s: Service = {metadata: {name: 'foo', namespace: 'testing'}, spec: {clusterIP: '10.96.0.10', ports: [{port: 80}]}}
  if (annotations !== undefined) s.metadata.annotations = annotations
  if (trafficDistribution !== undefined) s.spec!.trafficDistribution = trafficDistribution
  return s
}

/** Upstream's check: zone hint per endpoint ("" for none), and endpoints hinted to another zone. */
function hintDistribution(slices: EndpointSlice[]): {byZone: Record<string, number>; crossZone: number} {
  const byZone: Record<string, number> = {}
  let crossZone = 0
  for (const s of slices) {
    for (const ep of s.endpoints ?? []) {
      const fz = ep.hints?.forZones ?? []
      const zoneHint = fz.length === 1 ? fz[0]!.name : ''
      byZone[zoneHint] = (byZone[zoneHint] ?? 0) + 1
      if (zoneHint !== '' && ep.zone !== zoneHint) crossZone++
    }
  }
  return {byZone, crossZone}
}

function withHints(s: EndpointSlice, zone: (ep: Endpoint) => string | undefined, nodes = false): EndpointSlice {
  const c = structuredClone(s)
  for (const ep of c.endpoints ?? []) {
    const z = zone(ep)
    ep.hints = {}
    if (z !== undefined) ep.hints.forZones = [{name: z}]
    if (nodes) ep.hints.forNodes = [{name: ep.nodeName!}]
  }
  return c
}

const MODES: PredictionMode[] = ['next-sync', 'fresh']

// ---- TestReconcileTopology --------------------------------------------------------------------
// Ported from k8s.io/endpointslice reconciler_test.go, TestReconcileTopology (5 cases). Upstream
// builds slices from pods and reconciles with existing slices whose endpoints do not change, so
// the slices reach the topology code as "unchanged": our 'next-sync' mode. We assert the
// hint-level outcome (hints per zone, cross-zone hints) and, for numUpdated, the slices written.
// Topology: 3 zones x 10 nodes (100m each), one ready pod per node.

describe('TestReconcileTopology (upstream reconciler_test.go)', () => {
  const zones = ['zone-a', 'zone-b', 'zone-c']
  const nodes: Node[] = []
  const pods: Pod[] = []
  zones.forEach((zone, i) => {
    for (let j = 0; j < 10; j++) {
      const name = `node-${zone}-${j}`
      nodes.push(node(name, zone))
      pods.push({name: `pod${i * 100 + j}`, ip: `1.2.${i}.${j}`, node: name, zone})
    }
  })
  const p = (...idx: number[]) => idx.map((i) => pods[i]!)
  const slicesByName = {
    'zone-a-b': mkSlice('zone-a-b', p(7, 8, 16, 17, 18)),
    'zone-a-c': mkSlice('zone-a-c', p(5, 6, 25, 26)),
    'zone-c': mkSlice('zone-c', p(27, 28, 29)),
  }
  const ratios = setNodes(nodes).cpuRatiosByZone

  const cases: {
    name: string
    topologyCacheEnabled: boolean
    hintsAnnotation: string
    existingSlices: EndpointSlice[]
    expectedHints: Record<string, number> | null
    expectedCrossZoneHints: number
    numUpdated: number
    event?: {type: string; reason: string; message: string}
  }[] = [
    {
      name: 'no change, topologyCache disabled, annotation == auto',
      topologyCacheEnabled: false,
      hintsAnnotation: 'auto',
      existingSlices: [slicesByName['zone-c']],
      expectedHints: null,
      expectedCrossZoneHints: 0,
      numUpdated: 0,
    },
    {
      name: 'enabling topologyCache, hintsAnnotation == auto',
      topologyCacheEnabled: true,
      hintsAnnotation: 'auto',
      existingSlices: [slicesByName['zone-c']],
      expectedHints: {'zone-a': 1, 'zone-b': 1, 'zone-c': 1},
      expectedCrossZoneHints: 2,
      numUpdated: 1,
      event: {type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled, addressType: IPv4'},
    },
    {
      name: 'topology enabled,  hintsAnnotation==auto, ratio beyond threshold',
      topologyCacheEnabled: true,
      hintsAnnotation: 'auto',
      existingSlices: [slicesByName['zone-a-c']],
      expectedHints: null,
      expectedCrossZoneHints: 0,
      numUpdated: 0,
      event: {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones), addressType: IPv4',
      },
    },
    {
      name: 'topology enabled, hintsAnnotation==Auto, more slices and endpoints',
      topologyCacheEnabled: true,
      hintsAnnotation: 'Auto',
      existingSlices: [slicesByName['zone-a-c'], slicesByName['zone-a-b']],
      expectedHints: {'zone-a': 3, 'zone-b': 3, 'zone-c': 3},
      expectedCrossZoneHints: 1,
      numUpdated: 2,
      event: {type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled, addressType: IPv4'},
    },
    {
      name: 'topology enabled, hintsAnnotation==disabled, more slices and endpoints',
      topologyCacheEnabled: true,
      hintsAnnotation: 'disabled',
      existingSlices: [slicesByName['zone-a-c'], slicesByName['zone-a-b']],
      expectedHints: null,
      expectedCrossZoneHints: 0,
      numUpdated: 0,
    },
  ]

  describe.each(MODES)('%s', (mode) => {
    it.each(cases)('$name', (tc) => {
      const f: Features = {...features('1.36.3'), topologyAwareHints: tc.topologyCacheEnabled}
      const before = structuredClone(tc.existingSlices)
      const got = predictHints({
        service: service({[HINTS]: tc.hintsAnnotation}),
        slices: tc.existingSlices,
        addressType: 'IPv4',
        ratios,
        features: f,
        mode,
      })
      expect(tc.existingSlices).toEqual(before)
      expect(got.slices.map((s) => s.metadata.name)).toEqual(tc.existingSlices.map((s) => s.metadata.name))

      const {byZone, crossZone} = hintDistribution(got.slices)
      if (tc.expectedHints === null) {
        for (const s of got.slices) for (const ep of s.endpoints ?? []) expect(ep.hints?.forZones ?? []).toEqual([])
        expect(got.hintsSet).toBe(false)
      } else {
        expect(byZone).toEqual(tc.expectedHints)
        expect(got.hintsSet).toBe(true)
        for (const s of got.slices) for (const ep of s.endpoints ?? []) expect(ep.hints?.forZones).toHaveLength(1)
      }
      expect(crossZone).toBe(tc.expectedCrossZoneHints)

      // numUpdated: upstream writes only the slices moved to the update list at a next sync; a
      // fresh rebuild writes every slice.
      expect(got.writtenSliceNames).toHaveLength(mode === 'fresh' ? tc.existingSlices.length : tc.numUpdated)
      expect(got.changedSliceNames).toHaveLength(tc.numUpdated)
      expect(got.events).toEqual(tc.event ? [tc.event] : [])
      expect(got.path).toBe(tc.topologyCacheEnabled && tc.hintsAnnotation.toLowerCase() === 'auto' ? 'topology-mode-auto' : 'none')
    })
  })

  it('more slices and endpoints: the first zone-a endpoint of the first written slice moves to zone-c', () => {
    // Documented deterministic choice (sorted zones; first endpoints of a giving zone move).
    const got = predictHints({
      service: service({[MODE]: 'Auto'}),
      slices: [slicesByName['zone-a-c'], slicesByName['zone-a-b']],
      addressType: 'IPv4',
      ratios,
      features: features('1.36.3'),
      mode: 'next-sync',
    })
    const first = got.slices[0]!.endpoints![0]!
    expect(first.zone).toBe('zone-a')
    expect(first.hints).toEqual({forZones: [{name: 'zone-c'}]})
    expect(got.addHints?.giving).toEqual({'zone-a': 1})
    expect(got.addHints?.receiving).toEqual({'zone-c': 1})
    expect(got.addHints?.totalReady).toBe(9)
  })

  it('alternatives: false writes the same hints and events without computing the alternatives (explain figuresOnly)', () => {
    const args = {
      service: service({[MODE]: 'Auto'}),
      slices: [slicesByName['zone-a-c'], slicesByName['zone-a-b']],
      addressType: 'IPv4' as const,
      ratios,
      features: features('1.36.3'),
      mode: 'fresh' as const,
    }
    const full = predictHints(args)
    const only = predictHints({...args, alternatives: false})
    expect(full.addHints?.alternatives).toBeDefined()
    expect(only.addHints?.alternatives).toBeUndefined()
    expect(only.addHints?.randomChoices?.sliceOrder).toBe(0)
    const {addHints: fa, ...fullRest} = full
    const {addHints: oa, ...onlyRest} = only
    expect(onlyRest).toEqual(fullRest)
    expect({...oa, alternatives: fa?.alternatives, randomChoices: fa?.randomChoices}).toEqual(fa)
  })

  it('next-sync reuses valid existing hints: a second sync changes nothing and emits nothing once populated', () => {
    const args = {
      service: service({[MODE]: 'Auto'}),
      addressType: 'IPv4' as const,
      ratios,
      features: features('1.36.3'),
      mode: 'next-sync' as const,
    }
    const first = predictHints({...args, slices: [slicesByName['zone-a-c'], slicesByName['zone-a-b']]})
    const second = predictHints({...args, slices: first.slices, populated: true})
    expect(second.slices).toEqual(first.slices)
    expect(second.changedSliceNames).toEqual([])
    expect(second.writtenSliceNames).toEqual([])
    expect(second.events).toEqual([])
    expect(second.hintsSet).toBe(true)
  })
})

// ---- TestReconcile_TrafficDistribution --------------------------------------------------------
// Ported from k8s.io/endpointslice reconciler_test.go, TestReconcile_TrafficDistribution. Upstream
// versions differ: the gated one (trafficDistributionFeatureGateEnabled) has 4 cases, with
// "trafficDistribution=nil, topologyAnnotation=<empty>" in one version and
// "trafficDistribution=<empty>, topologyAnnotation=<empty>" in another; we port all 5 names.
// "feature gate disabled" is expressed as Kubernetes 1.30 (ServiceTrafficDistribution alpha,
// default off); the others as 1.36. Upstream creates one new slice for the 6 pods; that is our
// 'fresh' mode, and 'next-sync' with a hint-less live slice gives the same hints.
// Topology: node-0 in zone-a {pod-0}; node-1 in zone-b {pod-1,2,3}; node-2 in zone-c {pod-4,5}.

describe('TestReconcile_TrafficDistribution (upstream reconciler_test.go)', () => {
  const nodes = [node('node-0', 'zone-a'), node('node-1', 'zone-b'), node('node-2', 'zone-c')]
  const placement = ['node-0', 'node-1', 'node-1', 'node-1', 'node-2', 'node-2']
  const pods: Pod[] = placement.map((n, i) => ({
    name: `pod-${i}`,
    ip: `1.2.3.${i + 4}`,
    node: n,
    zone: `zone-${'abc'[Number(n.slice(-1))]}`,
  }))
  const ratios = setNodes(nodes).cpuRatiosByZone
  const theSlice = mkSlice('foo-abc12', pods)

  const cases: {
    name: string
    version: string
    trafficDistribution: string | undefined
    topologyAnnotation: string
    wantHintsDistributionByZone: Record<string, number>
    wantEndpointsWithCrossZoneHints: number
    wantPath: string
  }[] = [
    {
      name: 'trafficDistribution=PreferClose, topologyAnnotation=Disabled',
      version: '1.36.3',
      trafficDistribution: 'PreferClose',
      topologyAnnotation: 'Disabled',
      wantHintsDistributionByZone: {'zone-a': 1, 'zone-b': 3, 'zone-c': 2},
      wantEndpointsWithCrossZoneHints: 0,
      wantPath: 'traffic-distribution',
    },
    {
      name: 'feature gate disabled; trafficDistribution=PreferClose, topologyAnnotation=Disabled',
      version: '1.30.0',
      trafficDistribution: 'PreferClose',
      topologyAnnotation: 'Disabled',
      wantHintsDistributionByZone: {'': 6}, // Equivalent to no hints.
      wantEndpointsWithCrossZoneHints: 0,
      wantPath: 'none',
    },
    {
      name: 'trafficDistribution=PreferClose, topologyAnnotation=Auto',
      version: '1.36.3',
      trafficDistribution: 'PreferClose',
      topologyAnnotation: 'Auto',
      wantHintsDistributionByZone: {'zone-a': 2, 'zone-b': 2, 'zone-c': 2},
      wantEndpointsWithCrossZoneHints: 1, // a pod from zone-b is assigned a hint for zone-a
      wantPath: 'topology-mode-auto',
    },
    {
      name: 'trafficDistribution=nil, topologyAnnotation=<empty>',
      version: '1.36.3',
      trafficDistribution: undefined,
      topologyAnnotation: '',
      wantHintsDistributionByZone: {'': 6},
      wantEndpointsWithCrossZoneHints: 0,
      wantPath: 'none',
    },
    {
      name: 'trafficDistribution=<empty>, topologyAnnotation=<empty>',
      version: '1.36.3',
      trafficDistribution: '',
      topologyAnnotation: '',
      wantHintsDistributionByZone: {'': 6},
      wantEndpointsWithCrossZoneHints: 0,
      wantPath: 'none',
    },
  ]

  describe.each(MODES)('%s', (mode) => {
    it.each(cases)('$name', (tc) => {
      const got = predictHints({
        service: service({[HINTS]: tc.topologyAnnotation}, tc.trafficDistribution),
        slices: [theSlice],
        addressType: 'IPv4',
        ratios,
        features: features(tc.version),
        mode,
      })
      const {byZone, crossZone} = hintDistribution(got.slices)
      expect(byZone).toEqual(tc.wantHintsDistributionByZone)
      expect(crossZone).toBe(tc.wantEndpointsWithCrossZoneHints)
      expect(got.path).toBe(tc.wantPath)
      expect(got.hintsSet).toBe(!('' in tc.wantHintsDistributionByZone))
      // The trafficDistribution path emits no events; annotation mode emits Enabled once.
      expect(got.events.map((e) => e.reason)).toEqual(tc.wantPath === 'topology-mode-auto' ? ['TopologyAwareHintsEnabled'] : [])
      // No node hints on any of these paths.
      for (const ep of got.slices[0]!.endpoints!) expect(ep.hints?.forNodes ?? []).toEqual([])
    })
  })
})

// ---- beyond upstream: decision table, events, version gating, prediction modes ----------------

describe('predictHints', () => {
  const nodes = [node('n-a', 'zone-a'), node('n-b', 'zone-b'), node('n-c', 'zone-c')]
  const ratios = setNodes(nodes).cpuRatiosByZone
  const pods: Pod[] = [
    {name: 'p0', ip: '10.0.0.1', node: 'n-a', zone: 'zone-a'},
    {name: 'p1', ip: '10.0.0.2', node: 'n-a', zone: 'zone-a'},
    {name: 'p2', ip: '10.0.0.3', node: 'n-b', zone: 'zone-b'},
    {name: 'p3', ip: '10.0.0.4', node: 'n-b', zone: 'zone-b'},
    {name: 'p4', ip: '10.0.0.5', node: 'n-c', zone: 'zone-c'},
    {name: 'p5', ip: '10.0.0.6', node: 'n-c', zone: 'zone-c'},
  ]
  const plain = [mkSlice('s1', pods.slice(0, 3)), mkSlice('s2', pods.slice(3))]
  const sameZone = plain.map((s) => withHints(s, (ep) => ep.zone!))
  const sameZoneNode = plain.map((s) => withHints(s, (ep) => ep.zone!, true))
  const base = {addressType: 'IPv4' as const, ratios}

  describe('version gating of trafficDistribution', () => {
    it('PreferSameNode at 1.33 removes existing hints (value not accepted: reconciler.go validTrafficDistribution)', () => {
      const got = predictHints({...base, service: service(undefined, 'PreferSameNode'), slices: sameZoneNode, features: features('1.33.2'), mode: 'next-sync'})
      expect(got.path).toBe('none')
      expect(got.hintsSet).toBe(false)
      for (const s of got.slices) for (const ep of s.endpoints!) expect(ep.hints).toBeUndefined()
      expect(got.changedSliceNames).toEqual(['s1', 's2'])
      expect(got.events).toEqual([])
    })

    it('PreferSameNode at 1.35 writes zone and node hints', () => {
      for (const mode of MODES) {
        const got = predictHints({...base, service: service(undefined, 'PreferSameNode'), slices: plain, features: features('1.35.0'), mode})
        expect(got.path).toBe('traffic-distribution')
        expect(got.hintsSet).toBe(true)
        expect(got.slices).toEqual(sameZoneNode)
        expect(got.changedSliceNames).toEqual(['s1', 's2'])
      }
    })

    it('PreferSameNode at 1.35 with correct hints already: nothing to write at the next sync', () => {
      const got = predictHints({...base, service: service(undefined, 'PreferSameNode'), slices: sameZoneNode, features: features('1.35.0'), mode: 'next-sync'})
      expect(got.writtenSliceNames).toEqual([])
      expect(got.changedSliceNames).toEqual([])
      expect(got.slices[0]).toBe(sameZoneNode[0])
    })

    it('switching PreferSameNode -> PreferSameZone drops the node hints', () => {
      const got = predictHints({...base, service: service(undefined, 'PreferSameZone'), slices: sameZoneNode, features: features('1.36'), mode: 'next-sync'})
      expect(got.slices).toEqual(sameZone)
      expect(got.changedSliceNames).toEqual(['s1', 's2'])
    })

    it('PreferSameZone at 1.33 removes hints; at 1.34 keeps them', () => {
      const at133 = predictHints({...base, service: service(undefined, 'PreferSameZone'), slices: sameZone, features: features('1.33'), mode: 'next-sync'})
      expect(at133.hintsSet).toBe(false)
      expect(at133.changedSliceNames).toEqual(['s1', 's2'])
      const at134 = predictHints({...base, service: service(undefined, 'PreferSameZone'), slices: sameZone, features: features('1.34'), mode: 'next-sync'})
      expect(at134.hintsSet).toBe(true)
      expect(at134.changedSliceNames).toEqual([])
    })

    it('PreferClose at 1.30 removes hints; at 1.31 writes same-zone hints', () => {
      const at130 = predictHints({...base, service: service(undefined, 'PreferClose'), slices: sameZone, features: features('1.30'), mode: 'next-sync'})
      expect(at130.path).toBe('none')
      expect(at130.hintsSet).toBe(false)
      const at131 = predictHints({...base, service: service(undefined, 'PreferClose'), slices: plain, features: features('1.31'), mode: 'fresh'})
      expect(at131.slices).toEqual(sameZone)
    })

    it('an endpoint without zone gets a "" zone hint before 1.33 and none from 1.33', () => {
      const noZone = structuredClone(plain)
      delete noZone[0]!.endpoints![0]!.zone
      const at132 = predictHints({...base, service: service(undefined, 'PreferClose'), slices: noZone, features: features('1.32'), mode: 'fresh'})
      expect(at132.slices[0]!.endpoints![0]!.hints).toEqual({forZones: [{name: ''}]})
      const at133 = predictHints({...base, service: service(undefined, 'PreferClose'), slices: noZone, features: features('1.33'), mode: 'fresh'})
      expect(at133.slices[0]!.endpoints![0]!.hints).toBeUndefined()
      expect(at133.slices[0]!.endpoints![1]!.hints).toEqual({forZones: [{name: 'zone-a'}]})
    })

    it('unknown trafficDistribution removes hints at every version', () => {
      for (const v of ['1.31', '1.34', '1.37']) {
        const got = predictHints({...base, service: service(undefined, 'PreferRegion'), slices: sameZone, features: features(v), mode: 'next-sync'})
        expect(got.hintsSet).toBe(false)
        expect(got.changedSliceNames).toEqual(['s1', 's2'])
      }
    })
  })

  describe('annotation beats trafficDistribution (reconciler.go reconcileByAddressType)', () => {
    it('topology-mode Auto + PreferSameNode: annotation-mode zone hints, no node hints (fresh)', () => {
      const got = predictHints({...base, service: service({[MODE]: 'Auto'}, 'PreferSameNode'), slices: plain, features: features('1.36'), mode: 'fresh'})
      expect(got.path).toBe('topology-mode-auto')
      expect(got.addHints?.hintsSet).toBe(true)
      expect(got.slices).toEqual(sameZone) // 2/2/2 with equal CPU: every endpoint keeps its own zone
      for (const s of got.slices) for (const ep of s.endpoints!) expect(ep.hints?.forNodes).toBeUndefined()
    })

    it('upstream quirk: next-sync after PreferSameNode keeps valid zone hints together with their node hints', () => {
      // getHintsByZone only looks at forZones, so a slice whose zone hints are a valid allocation
      // stays unchanged, stale forNodes included.
      const got = predictHints({...base, service: service({[MODE]: 'Auto'}, 'PreferSameNode'), slices: sameZoneNode, features: features('1.36'), mode: 'next-sync'})
      expect(got.path).toBe('topology-mode-auto')
      expect(got.writtenSliceNames).toEqual([])
      expect(got.slices).toEqual(sameZoneNode)
    })
  })

  describe('events on leaving annotation mode', () => {
    const disabled = {type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Topology Aware Hints has been disabled, addressType: IPv4'}

    it('populated service, annotation removed: Disabled warning and hints removed', () => {
      const got = predictHints({...base, service: service(), slices: sameZone, features: features('1.36'), mode: 'next-sync', populated: true})
      expect(got.path).toBe('none')
      expect(got.events).toEqual([disabled])
      expect(got.hintsSet).toBe(false)
      expect(got.writtenSliceNames).toEqual(['s1', 's2'])
    })

    it('populated service, switched to trafficDistribution: Disabled warning, then trafficdist keeps same-zone hints', () => {
      const got = predictHints({...base, service: service(undefined, 'PreferSameZone'), slices: sameZone, features: features('1.36'), mode: 'next-sync', populated: true})
      expect(got.path).toBe('traffic-distribution')
      expect(got.events).toEqual([disabled])
      expect(got.hintsSet).toBe(true)
      expect(got.writtenSliceNames).toEqual([])
      expect(got.slices[0]).toBe(sameZone[0])
    })

    it('populated service with the topology cache disabled: no event', () => {
      const f: Features = {...features('1.36'), topologyAwareHints: false}
      const got = predictHints({...base, service: service({[MODE]: 'Auto'}), slices: sameZone, features: f, mode: 'next-sync', populated: true})
      expect(got.path).toBe('none')
      expect(got.events).toEqual([])
      expect(got.hintsSet).toBe(false)
    })

    it('not populated: no event', () => {
      const got = predictHints({...base, service: service({[MODE]: 'Disabled'}), slices: sameZone, features: features('1.36'), mode: 'next-sync'})
      expect(got.events).toEqual([])
    })

    it('IPv6 gets its own suffix', () => {
      const v6 = plain.map((s) => ({...withHints(s, (ep) => ep.zone!), addressType: 'IPv6' as const}))
      const got = predictHints({...base, addressType: 'IPv6', service: service(), slices: v6, features: features('1.36'), mode: 'next-sync', populated: true})
      expect(got.events[0]!.message).toBe('Topology Aware Hints has been disabled, addressType: IPv6')
    })

    it('still annotation mode and populated: no Enabled event again', () => {
      const got = predictHints({...base, service: service({[MODE]: 'Auto'}), slices: plain, features: features('1.36'), mode: 'fresh', populated: true})
      expect(got.events).toEqual([])
      expect(got.hintsSet).toBe(true)
    })
  })

  describe('prediction modes', () => {
    it('fresh clears existing hints first, next-sync reuses them', () => {
      // Hints that are a valid allocation but not what a fresh AddHints would write.
      const skewed = plain.map((s) => withHints(s, (ep) => ep.zone!))
      skewed[0]!.endpoints![0]!.hints = {forZones: [{name: 'zone-b'}]} // a1 b3 c2 -> max is 2 for b
      const svc = service({[MODE]: 'Auto'})
      const nextSync = predictHints({...base, service: svc, slices: skewed, features: features('1.36'), mode: 'next-sync'})
      const fresh = predictHints({...base, service: svc, slices: skewed, features: features('1.36'), mode: 'fresh'})
      expect(hintDistribution(fresh.slices).byZone).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
      expect(fresh.slices).toEqual(sameZone)
      expect(fresh.writtenSliceNames).toEqual(['s1', 's2'])
      expect(fresh.changedSliceNames).toEqual(['s1'])
      // next-sync (N=6, every zone: minimum 2, maximum 2): s1 holds a1 b2, within the maximum, so
      // it is reused as is; s2 would add one more zone-b hint (2+1 > 2), so only s2 is rewritten.
      expect(nextSync.writtenSliceNames).toEqual(['s2'])
      expect(nextSync.slices[0]).toBe(skewed[0])
    })

    it('fresh mode with no topology path writes every slice without hints', () => {
      const got = predictHints({...base, service: service(), slices: sameZone, features: features('1.36'), mode: 'fresh'})
      expect(got.writtenSliceNames).toEqual(['s1', 's2'])
      expect(got.changedSliceNames).toEqual(['s1', 's2'])
      for (const s of got.slices) for (const ep of s.endpoints!) expect(ep.hints).toBeUndefined()
    })

    it('keeps input order and does not mutate inputs', () => {
      const slices = [mkSlice('z', pods.slice(0, 2)), mkSlice('a', pods.slice(2, 4)), mkSlice('m', pods.slice(4))]
      const before = structuredClone(slices)
      for (const mode of MODES) {
        const got = predictHints({...base, service: service({[MODE]: 'Auto'}), slices, features: features(), mode})
        expect(got.slices.map((s) => s.metadata.name)).toEqual(['z', 'a', 'm'])
      }
      expect(slices).toEqual(before)
    })

    it('insufficient node info (ratios null): Warning, no hints', () => {
      const got = predictHints({...base, ratios: null, service: service({[MODE]: 'Auto'}), slices: sameZone, features: features(), mode: 'next-sync'})
      expect(got.hintsSet).toBe(false)
      expect(got.events).toEqual([
        {
          type: 'Warning',
          reason: 'TopologyAwareHintsDisabled',
          message: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4',
        },
      ])
      expect(got.changedSliceNames).toEqual(['s1', 's2'])
    })
  })

  describe('input validation', () => {
    it('rejects duplicate names', () => {
      expect(() => predictHints({...base, service: service(), slices: [plain[0]!, plain[0]!], features: features(), mode: 'fresh'})).toThrow(/duplicate EndpointSlice name "s1"/)
    })
    it('rejects a slice of another address type', () => {
      expect(() => predictHints({...base, addressType: 'IPv6', service: service(), slices: plain, features: features(), mode: 'fresh'})).toThrow(/addressType IPv4, expected IPv6/)
    })
  })
})

describe("predictHints 'fresh': the cleared copies", () => {
  // The copies are built without the hints key (no `delete`); they must be what a clone with
  // `delete ep.hints` gave: the same keys in the same order, hints gone, the input untouched.
  it('has every key but hints, in order, on copies; the input keeps its hints', () => {
    const eps: Endpoint[] = [
      {addresses: ['10.0.0.1'], conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}, nodeName: 'n1', zone: 'zone-a'},
      {addresses: ['10.0.0.2'], conditions: {ready: false}, nodeName: 'n2', zone: 'zone-b', hints: {forNodes: [{name: 'n2'}]}},
      {addresses: ['10.0.0.3'], conditions: {ready: true}, zone: 'zone-b'},
    ]
    const slice: EndpointSlice = {
      metadata: {name: 's1', labels: {'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'}},
      addressType: 'IPv4',
      endpoints: eps,
    }
    const before = JSON.stringify(slice)
    const svc: Service = {metadata: {name: 'svc', namespace: 'ns'}, spec: {selector: {app: 'x'}}}
    const got = predictHints({service: svc, slices: [slice], addressType: 'IPv4', ratios: null, features: features('1.36'), mode: 'fresh'})
    expect(JSON.stringify(slice)).toBe(before)
    const out = got.slices[0]!
    expect(out).not.toBe(slice)
    expect(out.endpoints!.map((e) => Object.keys(e))).toEqual([
      ['addresses', 'conditions', 'nodeName', 'zone'],
      ['addresses', 'conditions', 'nodeName', 'zone'],
      ['addresses', 'conditions', 'zone'],
    ])
    out.endpoints!.forEach((e, i) => expect(e).not.toBe(eps[i]))
    expect(got.changedSliceNames).toEqual(['s1'])
  })
})

describe("predictHints 'fresh' with the caller's cleared slices, and without the changed names", () => {
  // The advisor's modes of one Service share one list of hint-cleared slices (frozen), and read
  // only the predicted hints: every path must give what it gives without them, never write into
  // them, and `changes: false` must leave only changedSliceNames empty.
  const nodes = [node('a1', 'zone-a', '1'), node('a2', 'zone-a', '1'), node('b1', 'zone-b', '1')]
  const ratios = setNodes(nodes).cpuRatiosByZone
  const pods: Pod[] = [
    {name: 'p1', ip: '10.0.0.1', node: 'a1', zone: 'zone-a'},
    {name: 'p2', ip: '10.0.0.2', node: 'a2', zone: 'zone-a'},
    {name: 'p3', ip: '10.0.0.3', node: 'b1', zone: 'zone-b'},
    {name: 'p4', ip: '10.0.0.4', node: 'b1', zone: 'zone-b', ready: false},
    {name: 'p5', ip: '10.0.0.5', node: 'b1', zone: 'zone-b'},
  ]
  // Live hints of another mode (node hints too), so that every path has something to change.
  const slices = [withHints(mkSlice('s1', pods.slice(0, 3)), (ep) => ep.zone ?? undefined, true), withHints(mkSlice('s2', pods.slice(3)), () => 'zone-a')]
  const deepFreeze = (s: EndpointSlice): EndpointSlice => {
    for (const ep of s.endpoints ?? []) Object.freeze(ep)
    Object.freeze(s.endpoints)
    return Object.freeze(s)
  }
  const svcs: [string, Service][] = [
    ['Auto', service({[MODE]: 'Auto'})],
    ['PreferSameZone', service(undefined, 'PreferSameZone')],
    ['PreferSameNode', service(undefined, 'PreferSameNode')],
    ['none', service()],
  ]
  for (const [name, svc] of svcs) {
    it(`${name}: the same prediction from frozen cleared slices, the input untouched`, () => {
      const args = {service: svc, slices, addressType: 'IPv4' as const, ratios, features: features('1.36'), mode: 'fresh' as const}
      const before = JSON.stringify(slices)
      const want = predictHints(args)
      const cleared = clearedSlices(slices).map(deepFreeze)
      const got = predictHints({...args, cleared})
      expect(JSON.stringify(got)).toBe(JSON.stringify(want))
      expect(JSON.stringify(cleared)).toBe(JSON.stringify(clearedSlices(slices)))
      expect(JSON.stringify(slices)).toBe(before)
      expect(want.changedSliceNames).toContain('s2')
      const quiet = predictHints({...args, cleared, changes: false})
      expect(quiet.changedSliceNames).toEqual([])
      expect(JSON.stringify({...quiet, changedSliceNames: want.changedSliceNames})).toBe(JSON.stringify(want))
    })
  }

  it("none, fresh: every hint removed, the other keys kept in order (RemoveHintsFromSlices' result without its copy)", () => {
    const got = predictHints({service: service(), slices, addressType: 'IPv4', ratios, features: features('1.36'), mode: 'fresh'})
    expect(got.slices.flatMap((s) => s.endpoints!.map((e) => Object.keys(e).join(',')))).toEqual(Array(5).fill('addresses,conditions,nodeName,zone,targetRef'))
    expect(got.writtenSliceNames).toEqual(['s1', 's2'])
    expect(got.hintsSet).toBe(false)
  })

  it('refuses cleared slices that are not those of `slices`', () => {
    const args = {service: service(), slices, addressType: 'IPv4' as const, ratios, features: features('1.36'), mode: 'fresh' as const}
    expect(() => predictHints({...args, cleared: clearedSlices([slices[1]!, slices[0]!])})).toThrow(/cleared slices/)
    expect(() => predictHints({...args, cleared: clearedSlices(slices.slice(1))})).toThrow(/cleared slices/)
  })
})

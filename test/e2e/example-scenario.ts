// The cluster behind examples/three-zones.yaml, as data: test/e2e/make-example.ts builds it
// on the real control plane to produce the bundled snapshot, and test/e2e/example.test.ts
// builds it again and checks that live `explain` shows every outcome the snapshot shows.
import type {NodeOptions} from './fixtures.js'

export const NAMESPACE = 'shop'
export const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'] as const
const zoneIndex = (z: string) => ZONES.indexOf(z as (typeof ZONES)[number]) + 1

const worker = (zone: string, i: number): NodeOptions => ({
  name: `ip-10-0-${zoneIndex(zone)}-${20 + i}.eu-west-1.compute.internal`,
  zone,
  cpu: '7910m',
})

/** 3 workers per zone (equal CPU: each zone holds 1/3), a control-plane node per zone, one NotReady worker. */
export const NODES: NodeOptions[] = [
  ...ZONES.flatMap((z) => [0, 1, 2].map((i) => worker(z, i))),
  ...ZONES.map((z) => ({
    name: `cp-${z}.eu-west-1.compute.internal`,
    zone: z,
    cpu: '1930m',
    labels: {'node-role.kubernetes.io/control-plane': ''},
  })),
  {name: 'ip-10-0-3-99.eu-west-1.compute.internal', zone: 'eu-west-1c', cpu: '7910m', ready: false},
]

/** The node added for examples/unlabeled-node.yaml: a ready worker without a zone label. */
export const UNLABELED_NODE: NodeOptions = {name: 'ip-10-0-4-10.eu-west-1.compute.internal', cpu: '7910m'}

export interface ExampleService {
  name: string
  annotations?: Record<string, string>
  trafficDistribution?: string
  /** Ready pods per zone, in ZONES order. */
  pods: [number, number, number]
  /** What explain must show for it (checked on the snapshot and on the live cluster). */
  expect: {
    hintsSet: boolean
    reason: string
    messagePrefix?: string
    donated?: number
    nodeHints?: boolean
    drift?: boolean
  }
}

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}

export const SERVICES: ExampleService[] = [
  // 4/3/2 in three equal zones: targets 3/3/3, so one eu-west-1a endpoint is donated to eu-west-1c.
  {name: 'checkout', annotations: AUTO, pods: [4, 3, 2], expect: {hintsSet: true, reason: 'TopologyAwareHintsEnabled', donated: 1}},
  // 4/4/3 = 11: each minimum is ceil(3.67 x 5/6) = 4, 12 > 11: refused although evenly spread.
  {
    name: 'cart',
    annotations: AUTO,
    pods: [4, 4, 3],
    expect: {hintsSet: false, reason: 'TopologyAwareHintsDisabled', messagePrefix: 'Unable to allocate minimum required endpoints'},
  },
  // 2 endpoints for 3 zones.
  {
    name: 'payments',
    annotations: AUTO,
    pods: [1, 1, 0],
    expect: {hintsSet: false, reason: 'TopologyAwareHintsDisabled', messagePrefix: 'Insufficient number of endpoints (2 endpoints, 3 zones)'},
  },
  // Same-node preference: zone and node hints.
  {name: 'sessions', trafficDistribution: 'PreferSameNode', pods: [2, 2, 2], expect: {hintsSet: true, reason: 'TrafficDistribution', nodeHints: true}},
  {name: 'catalog', trafficDistribution: 'PreferSameZone', pods: [3, 2, 1], expect: {hintsSet: true, reason: 'TrafficDistribution'}},
  // "AUTO" is not "Auto"/"auto": upstream ignores it, so no hints. (Both annotation keys with
  // different values would be the other classic, but the API server rejects that combination.)
  {
    name: 'inventory',
    annotations: {'service.kubernetes.io/topology-mode': 'AUTO'},
    pods: [2, 2, 2],
    expect: {hintsSet: false, reason: 'TopologyNotRequested'},
  },
  // Hints set by the controller; then, while the controller is paused, the hints of the
  // eu-west-1c endpoints are removed (as an older writer or a half-finished rollout leaves
  // them): kube-proxy falls back everywhere, and the controller's next sync rewrites them.
  {name: 'search', annotations: AUTO, pods: [4, 4, 4], expect: {hintsSet: true, reason: 'TopologyAwareHintsEnabled', drift: true}},
]

/** The Service whose live hints are edited while the controller is paused, and the zone whose endpoints lose them. */
export const DRIFT = {service: 'search', zone: 'eu-west-1c'}

export interface PodSpec {
  name: string
  service: string
  nodeName: string
  ip: string
  zone: string
}

/** Pods, spread round-robin over each zone's workers. */
export function podsFor(svc: ExampleService, serviceIndex: number): PodSpec[] {
  const out: PodSpec[] = []
  svc.pods.forEach((count, zi) => {
    const zone = ZONES[zi]!
    const workers = NODES.filter((n) => n.zone === zone && !n.labels && n.ready !== false)
    for (let i = 0; i < count; i++) {
      out.push({
        name: `${svc.name}-${zone.slice(-2)}-${i}`,
        service: svc.name,
        nodeName: workers[i % workers.length]!.name,
        ip: `10.${100 + serviceIndex}.${zi + 1}.${10 + i}`,
        zone,
      })
    }
  })
  return out
}

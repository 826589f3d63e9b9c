// The corpus of test/e2e/advice.test.ts ("follow the advice"): clusters built on the real
// control plane whose Services get advice from explain and plan. Each scenario is a node layout
// and a set of Services (Pods per zone, annotations, trafficDistribution, the workload and HPA
// behind them); its targets are the Services whose printed commands are run.
//
// Version rules the scenarios cover (src/upstream/features.ts): spec.trafficDistribution is
// dropped by the 1.30 API server; PreferClose is its only value on 1.31-1.33; PreferSameZone and
// PreferSameNode from 1.34 (PreferClose is kept as a deprecated alias).
import type {NodeOptions} from './fixtures.js'
import {NODES as EXAMPLE_NODES, SERVICES as EXAMPLE_SERVICES, UNLABELED_NODE, ZONES as EXAMPLE_ZONES} from './example-scenario.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}

export interface AdviceWorkload {
  kind: 'Deployment' | 'StatefulSet'
  /** Default: the Service's name. */
  name?: string
  /** spec.replicas; default: the Service's Pod count. */
  replicas?: number
  zoneSpread?: 'DoNotSchedule' | 'ScheduleAnyway'
  hpa?: {min: number; max: number}
  maxSurge?: number
  maxUnavailable?: number
}

export interface AdviceService {
  name: string
  annotations?: Record<string, string>
  /** Written as given: a 1.30 API server drops it; values a minor does not know are refused at create. */
  trafficDistribution?: string
  /** Ready Pods per zone (zone name -> count), round-robin over the zone's ready workers. */
  pods: Record<string, number>
  workload?: AdviceWorkload
}

export interface AdviceScenario {
  /** Unique; test names and failure messages carry it. */
  name: string
  /** Kubernetes minors it runs on (inclusive); default every one. */
  minors?: [number, number]
  nodes: NodeOptions[]
  services: AdviceService[]
  /** Services whose advice is followed; default every Service. */
  targets?: string[]
  /** The namespace's prefix (a random suffix is added); default `advice`. */
  namespacePrefix?: string
}

/** `count` workers per zone with `cpu` each (zone names as given). */
export function workers(zones: readonly string[], count: number, cpu: string | ((zone: string) => string) = '4'): NodeOptions[] {
  return zones.flatMap((zone) => Array.from({length: count}, (_, i) => ({name: `${zone}-w${i}`, zone, cpu: typeof cpu === 'string' ? cpu : cpu(zone)})))
}

const Z2 = ['zone-a', 'zone-b'] as const
const Z3 = ['zone-a', 'zone-b', 'zone-c'] as const
const Z4 = ['zone-a', 'zone-b', 'zone-c', 'zone-d'] as const
const perZone = (zones: readonly string[], counts: number[]): Record<string, number> => Object.fromEntries(zones.map((z, i) => [z, counts[i] ?? 0]))

const exampleService = (name: string): AdviceService => {
  const s = EXAMPLE_SERVICES.find((x) => x.name === name)!
  return {
    name: s.name,
    ...(s.annotations ? {annotations: s.annotations} : {}),
    ...(s.trafficDistribution ? {trafficDistribution: s.trafficDistribution} : {}),
    pods: perZone(EXAMPLE_ZONES, s.pods),
  }
}

/** A trafficDistribution value the minor keeps (1.31-1.33: PreferClose; 1.34+: PreferSameZone). */
const SAME_ZONE_NEW: [number, number] = [34, 99]
const PREFER_CLOSE_ONLY: [number, number] = [31, 33]

const THREE = workers(Z3, 2)

const ADVICE_SCENARIOS: AdviceScenario[] = [
  // ---- the bundled examples (examples/*.yaml), built live ------------------------------------
  {
    // examples/three-zones.yaml: every Service of the example (search without the paused-controller drift).
    name: 'example three-zones',
    nodes: EXAMPLE_NODES,
    // PreferSameNode and PreferSameZone are refused by the API servers before 1.34: those two
    // Services are in the scenario below.
    services: ['checkout', 'cart', 'payments', 'inventory', 'search'].map(exampleService),
    namespacePrefix: 'shop',
  },
  {name: 'example three-zones (catalog, sessions)', minors: SAME_ZONE_NEW, nodes: EXAMPLE_NODES, services: ['catalog', 'sessions'].map(exampleService), namespacePrefix: 'shop'},
  {
    // examples/unlabeled-node.yaml: a ready worker without a zone label removes every Auto hint.
    name: 'example unlabeled-node',
    nodes: [...EXAMPLE_NODES, UNLABELED_NODE],
    services: ['checkout', 'cart'].map(exampleService),
    namespacePrefix: 'shop',
  },
  {
    // examples/autoscaling.yaml: web (Auto, HPA 3..12, zone spread DoNotSchedule) and api (no mode, HPA 2..20, no spread).
    name: 'example autoscaling',
    nodes: EXAMPLE_NODES,
    services: [
      {
        name: 'web',
        annotations: AUTO,
        pods: perZone(EXAMPLE_ZONES, [2, 2, 2]),
        workload: {kind: 'Deployment', zoneSpread: 'DoNotSchedule', hpa: {min: 3, max: 12}, maxSurge: 1, maxUnavailable: 0},
      },
      {name: 'api', pods: perZone(EXAMPLE_ZONES, [2, 1, 1]), workload: {kind: 'Deployment', hpa: {min: 2, max: 20}}},
    ],
    namespacePrefix: 'shop',
  },
  {
    // examples/rollouts.yaml: web (Deployment 9, 3/3/3) and db (StatefulSet 6, 2/2/2), both Auto.
    name: 'example rollouts',
    nodes: EXAMPLE_NODES,
    services: [
      {name: 'web', annotations: AUTO, pods: perZone(EXAMPLE_ZONES, [3, 3, 3]), workload: {kind: 'Deployment', maxSurge: 2, maxUnavailable: 1}},
      {name: 'db', annotations: AUTO, pods: perZone(EXAMPLE_ZONES, [2, 2, 2]), workload: {kind: 'StatefulSet'}},
    ],
    namespacePrefix: 'shop',
  },

  // ---- Auto refused and accepted -----------------------------------------------------------
  {name: 'Auto refused 4/4/3, no workload', nodes: THREE, services: [{name: 'cart', annotations: AUTO, pods: perZone(Z3, [4, 4, 3])}]},
  {
    name: 'Auto refused 4/4/3, Deployment (scale to a count Auto accepts)',
    nodes: THREE,
    services: [{name: 'cart', annotations: AUTO, pods: perZone(Z3, [4, 4, 3]), workload: {kind: 'Deployment', zoneSpread: 'DoNotSchedule'}}],
  },
  {name: 'Auto refused: 2 endpoints for 3 zones', nodes: THREE, services: [{name: 'pay', annotations: AUTO, pods: perZone(Z3, [1, 1, 0])}]},
  {name: 'Auto accepted 3/3/3', nodes: THREE, services: [{name: 'web', annotations: AUTO, pods: perZone(Z3, [3, 3, 3])}]},
  {
    name: 'Auto accepted, Deployment without zone spread',
    nodes: THREE,
    services: [{name: 'web', annotations: AUTO, pods: perZone(Z3, [3, 3, 3]), workload: {kind: 'Deployment'}}],
  },
  {name: 'Auto, lowercase annotation value', nodes: THREE, services: [{name: 'low', annotations: {'service.kubernetes.io/topology-mode': 'auto'}, pods: perZone(Z3, [2, 2, 2])}]},
  {
    name: 'Auto via the deprecated topology-aware-hints annotation',
    nodes: THREE,
    services: [{name: 'old', annotations: {'service.kubernetes.io/topology-aware-hints': 'auto'}, pods: perZone(Z3, [3, 3, 3])}],
  },
  {
    // The advice clears the deprecated annotation too (its plain-kubectl patch names it).
    name: 'deprecated annotation, 2 endpoints for 3 zones',
    nodes: THREE,
    services: [{name: 'oldpay', annotations: {'service.kubernetes.io/topology-aware-hints': 'Auto'}, pods: perZone(Z3, [1, 1, 0])}],
  },
  {name: 'annotation AUTO (ignored)', nodes: THREE, services: [{name: 'upper', annotations: {'service.kubernetes.io/topology-mode': 'AUTO'}, pods: perZone(Z3, [2, 2, 2])}]},
  {name: 'unequal zone CPU, Auto', nodes: workers(Z3, 2, (z) => (z === 'zone-a' ? '8' : '4')), services: [{name: 'skew', annotations: AUTO, pods: perZone(Z3, [3, 3, 3])}]},

  // ---- annotation and trafficDistribution together -------------------------------------------
  {
    name: 'Auto refused + trafficDistribution PreferSameZone (the annotation wins)',
    minors: SAME_ZONE_NEW,
    nodes: THREE,
    services: [{name: 'both', annotations: AUTO, trafficDistribution: 'PreferSameZone', pods: perZone(Z3, [4, 4, 3])}],
  },
  {
    name: 'Auto accepted + trafficDistribution PreferSameZone',
    minors: SAME_ZONE_NEW,
    nodes: THREE,
    services: [{name: 'both', annotations: AUTO, trafficDistribution: 'PreferSameZone', pods: perZone(Z3, [3, 3, 3])}],
  },
  {
    name: 'Auto refused + trafficDistribution PreferClose',
    minors: [31, 99],
    nodes: THREE,
    services: [{name: 'both', annotations: AUTO, trafficDistribution: 'PreferClose', pods: perZone(Z3, [4, 4, 3])}],
  },

  // ---- trafficDistribution by version ----------------------------------------------------------
  {name: 'PreferClose 3/2/1', minors: PREFER_CLOSE_ONLY, nodes: THREE, services: [{name: 'close', trafficDistribution: 'PreferClose', pods: perZone(Z3, [3, 2, 1])}]},
  {name: 'PreferClose 2/2/2', minors: PREFER_CLOSE_ONLY, nodes: THREE, services: [{name: 'close', trafficDistribution: 'PreferClose', pods: perZone(Z3, [2, 2, 2])}]},
  {
    // The 1.30 API server drops the field (dropServiceDisabledFields): the Service has no mode.
    name: 'trafficDistribution on 1.30 (dropped)',
    minors: [30, 30],
    nodes: THREE,
    services: [{name: 'dropped', trafficDistribution: 'PreferClose', pods: perZone(Z3, [2, 2, 2])}],
  },
  {
    name: 'PreferSameZone 3/2/1 (overloaded zone)',
    minors: SAME_ZONE_NEW,
    nodes: THREE,
    services: [{name: 'same', trafficDistribution: 'PreferSameZone', pods: perZone(Z3, [3, 2, 1])}],
  },
  {
    // PreferSameZone overloads a zone above the bound and Auto refuses 11 endpoints: the way back to no topology.
    name: 'PreferSameZone 4/4/3 above the bound',
    minors: SAME_ZONE_NEW,
    nodes: THREE,
    services: [{name: 'over', trafficDistribution: 'PreferSameZone', pods: perZone(Z3, [4, 4, 3])}],
  },
  {name: 'PreferSameNode 2/2/2', minors: SAME_ZONE_NEW, nodes: THREE, services: [{name: 'node', trafficDistribution: 'PreferSameNode', pods: perZone(Z3, [2, 2, 2])}]},

  // ---- HPA ranges ------------------------------------------------------------------------------
  {
    name: 'Auto, HPA 3..12 refused at some counts',
    nodes: THREE,
    services: [{name: 'hpa', annotations: AUTO, pods: perZone(Z3, [2, 2, 2]), workload: {kind: 'Deployment', zoneSpread: 'DoNotSchedule', hpa: {min: 3, max: 12}}}],
  },
  {
    name: 'no mode, HPA 4..9',
    nodes: THREE,
    services: [{name: 'hpa', pods: perZone(Z3, [2, 2, 2]), workload: {kind: 'Deployment', zoneSpread: 'DoNotSchedule', hpa: {min: 4, max: 9}}}],
  },

  // ---- untouched Services, odd names -------------------------------------------------------------
  {name: 'a Service no command ever touched', nodes: THREE, services: [{name: 'plain', pods: perZone(Z3, [2, 2, 2])}]},
  {name: 'untouched, unbalanced 4/1/1', nodes: THREE, services: [{name: 'plain', pods: perZone(Z3, [4, 1, 1])}]},
  {
    // A namespace that starts with a digit and holds a double hyphen; a Service name with one.
    name: 'unusual but valid names',
    nodes: THREE,
    services: [{name: 'a--b9', annotations: AUTO, pods: perZone(Z3, [4, 4, 3])}],
    namespacePrefix: '0--odd',
  },

  // ---- two and four zones ----------------------------------------------------------------------
  {name: '2 zones, Auto 2/2', nodes: workers(Z2, 2), services: [{name: 'two', annotations: AUTO, pods: perZone(Z2, [2, 2])}]},
  {name: '2 zones, Auto refused 3/1', nodes: workers(Z2, 2), services: [{name: 'two', annotations: AUTO, pods: perZone(Z2, [3, 1])}]},
  {name: '2 zones, untouched 2/2', nodes: workers(Z2, 2), services: [{name: 'two', pods: perZone(Z2, [2, 2])}]},
  {name: '4 zones, Auto 2/2/2/2', nodes: workers(Z4, 2), services: [{name: 'four', annotations: AUTO, pods: perZone(Z4, [2, 2, 2, 2])}]},
  {name: '4 zones, Auto refused 3/3/2/1', nodes: workers(Z4, 2), services: [{name: 'four', annotations: AUTO, pods: perZone(Z4, [3, 3, 2, 1])}]},
  {name: '4 zones, untouched 3/3/3/3', nodes: workers(Z4, 2), services: [{name: 'four', pods: perZone(Z4, [3, 3, 3, 3])}]},
]

/** The scenarios for a minor (e.g. 36). */
export function scenariosFor(minor: number): AdviceScenario[] {
  return ADVICE_SCENARIOS.filter((s) => !s.minors || (minor >= s.minors[0] && minor <= s.minors[1]))
}

/** (scenario, target) pairs: what the corpus counts. */
export function targetsOf(s: AdviceScenario): string[] {
  return s.targets ?? s.services.map((x) => x.name)
}

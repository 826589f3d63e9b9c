// Seeded random clusters for the differential test against the real EndpointSlice controller.
// Pure: the same seed gives the same scenario (mulberry32 PRNG), so every mismatch can be
// reproduced with `npm run test:differential -- --seed N --scenarios 1`.
import type {NodeOptions} from './fixtures.js'

export interface ScenarioPod {
  name: string
  nodeName: string
  ip: string
  ready: boolean
  terminating: boolean
}

/**
 * A change made after the first comparison, then compared again: a mode switch with the hints
 * in place (the controller's populated mark decides its event), or a forced re-sync (an
 * annotation the controller does not read is touched: onServiceUpdate queues the Service).
 */
export type Step = 'auto' | 'none' | 'prefer-same-zone' | 'resync'

export interface Scenario {
  seed: number
  zones: string[]
  nodes: NodeOptions[]
  pods: ScenarioPod[]
  annotations: Record<string, string>
  trafficDistribution?: string
  publishNotReadyAddresses: boolean
  /** Changes after the first comparison, in order (drawn after everything else, so seeds keep their clusters). */
  steps: Step[]
}

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const CPUS = ['500m', '1', '2', '3920m', '4', '4', '7910m', '8', '8', '16']

// Annotation variants: both keys (with the same value: the API server rejects different
// values), odd spellings that upstream ignores, and the deprecated key alone.
const ANNOTATIONS: Record<string, string>[] = [
  {},
  {'service.kubernetes.io/topology-mode': 'Auto'},
  {'service.kubernetes.io/topology-mode': 'Auto'},
  {'service.kubernetes.io/topology-mode': 'Auto'},
  {'service.kubernetes.io/topology-mode': 'auto'},
  {'service.kubernetes.io/topology-mode': 'AUTO'},
  {'service.kubernetes.io/topology-mode': 'Disabled'},
  {'service.kubernetes.io/topology-aware-hints': 'auto'},
  {'service.kubernetes.io/topology-aware-hints': 'Auto', 'service.kubernetes.io/topology-mode': 'Auto'},
  {'service.kubernetes.io/topology-aware-hints': 'disabled'},
]
const STEPS: Step[] = ['auto', 'auto', 'none', 'none', 'prefer-same-zone', 'resync', 'resync']
const TRAFFIC: (string | undefined)[] = [undefined, undefined, undefined, 'PreferClose', 'PreferSameZone', 'PreferSameNode']

/**
 * 'traffic' (DIFF_FOCUS=traffic): the same scenario, then, from further draws of the same PRNG,
 * a trafficDistribution on every Service, no Auto annotation, and a third of the Nodes without
 * a zone: the rules that differ between Kubernetes minors (which values exist, hints for
 * endpoints without a zone, node hints). The default scenarios are unchanged by it.
 */
export type ScenarioFocus = 'traffic'

export function generateScenario(seed: number, focus?: ScenarioFocus): Scenario {
  const rnd = mulberry32(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const chance = (p: number) => rnd() < p

  const zoneCount = int(2, 6)
  const zones = Array.from({length: zoneCount}, (_, i) => `zone-${String.fromCharCode(97 + i)}`)
  // Most clusters are healthy; some have the node problems users hit.
  const troubled = chance(0.25)
  const nodeCount = int(1, 40)
  const nodes: NodeOptions[] = []
  for (let i = 0; i < nodeCount; i++) {
    const name = `s${seed}-n${i}`
    const node: NodeOptions = {name, zone: chance(0.3) ? pick(zones) : zones[i % zoneCount]!, cpu: pick(CPUS)}
    if (chance(0.08)) node.labels = chance(0.5) ? {'node-role.kubernetes.io/control-plane': ''} : {'node-role.kubernetes.io/master': 'true'}
    if (chance(0.1)) node.ready = chance(0.7) ? false : null
    if (troubled && chance(0.08)) delete node.zone
    if (troubled && chance(0.04)) node.cpu = '0'
    nodes.push(node)
  }
  const podCount = chance(0.1) ? int(0, 3) : int(1, 60)
  const pods: ScenarioPod[] = []
  for (let i = 0; i < podCount; i++) {
    pods.push({
      name: `p${i}`,
      nodeName: pick(nodes).name,
      ip: `10.${(seed % 200) + 20}.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      ready: chance(0.82),
      terminating: chance(0.06),
    })
  }
  const scenario: Scenario = {
    seed,
    zones,
    nodes,
    pods,
    annotations: pick(ANNOTATIONS),
    publishNotReadyAddresses: chance(0.15),
    steps: [],
  }
  const td = pick(TRAFFIC)
  if (td !== undefined) scenario.trafficDistribution = td
  // Drawn last: the draws above are those of earlier versions, so a seed keeps its cluster.
  // More than 100 endpoints (the controller's --max-endpoints-per-slice default) in some
  // scenarios: several slices, which upstream walks in a random order.
  if (chance(0.2)) {
    const extra = int(60, 200)
    for (let i = podCount; i < podCount + extra; i++) {
      pods.push({
        name: `p${i}`,
        nodeName: pick(nodes).name,
        ip: `10.${(seed % 200) + 20}.${Math.floor(i / 250)}.${(i % 250) + 1}`,
        ready: chance(0.9),
        terminating: chance(0.03),
      })
    }
  }
  if (chance(0.6)) {
    const n = int(1, 3)
    for (let i = 0; i < n; i++) scenario.steps.push(pick(STEPS))
  }
  if (focus === 'traffic') {
    scenario.trafficDistribution = pick(['PreferClose', 'PreferSameZone', 'PreferSameNode'])
    scenario.annotations = pick<Record<string, string>>([{}, {}, {'service.kubernetes.io/topology-mode': 'Disabled'}, {'service.kubernetes.io/topology-aware-hints': 'disabled'}])
    for (const n of nodes) if (chance(0.33)) delete n.zone
  }
  return scenario
}

/** Whether the controller takes the topology-mode Auto path (computed here independently of the engine). */
export function autoAnnotation(annotations: Record<string, string>): boolean {
  const v = Object.hasOwn(annotations, 'service.kubernetes.io/topology-aware-hints')
    ? annotations['service.kubernetes.io/topology-aware-hints']
    : annotations['service.kubernetes.io/topology-mode']
  return v === 'Auto' || v === 'auto'
}

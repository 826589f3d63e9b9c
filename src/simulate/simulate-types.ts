// simulate's options and results (the types of simulate.ts and its what-if steps, in a file of
// their own so that no file of the room imports another in a circle).

import type {ScoreParts} from './measure.js'
import type {StrategyName} from './names.js'
import type {SubsettingMode} from './strategies/padding.js'

export const TRAFFIC_MODELS = ['cpu', 'nodes', 'uniform'] as const
export type TrafficModel = (typeof TRAFFIC_MODELS)[number]

export const DEFAULT_TOPOLOGY_KEYS = ['kubernetes.io/hostname', 'topology.kubernetes.io/zone', '*']

export interface SimulateOptions {
  /** the strategies to score (default: strategiesFor) */
  strategies?: readonly StrategyName[]
  /** with the default set: add KEP-2004's research strategies */
  research?: boolean
  trafficModel?: TrafficModel
  /** explicit traffic share per zone (normalised); overrides the model */
  traffic?: Record<string, number>
  kubeVersion?: string
  topologyKeys?: readonly string[]
  /** topology-keys: list each client node's route (StrategyResult.clients) */
  perNode?: boolean
  /** KEP-2004 padding for `local`: the previous subsetting mode (unset: the tool's stateless rule) */
  previousMode?: SubsettingMode
  padding?: number
  /**
   * --traffic names a zone that has neither a node nor a ready endpoint: an error (a typo),
   * unless this is set (rollout steps, where a zone can lose every ready endpoint for a while
   * and, with Nodes unreadable, is then known only from --traffic): the zone keeps its share.
   */
  trafficZonesKnown?: boolean
}

export class SimulateInputError extends Error {}

export interface ZoneResult {
  zone: string
  /** share of all traffic that originates in this zone */
  trafficShare: number
  /** share of this zone's traffic served by endpoints in the zone */
  inZoneTraffic: number
  /** endpoints running in this zone (ready) */
  localEndpoints: number
  /** endpoints this zone's clients may send to, by the zone they run in */
  serves: Record<string, number>
  /** share of all traffic received by endpoints running in this zone */
  load: number
  /** largest overload of an endpoint running in this zone (null: none) */
  maxOverload: number | null
  /** kube-proxy in this zone routes cluster-wide although topology is configured */
  fallback: boolean
  reason: string | null
  /** clients of this zone that get no endpoint at all (topology-keys without "*") */
  nodesWithoutBackends: string[]
}

export interface GroupResult {
  label: string
  endpoints: Record<string, number>
  consumers: Record<string, number>
}

export interface StrategyResult {
  strategy: StrategyName
  /** KEP-2004 / KEP-536 research: no cluster setting produces this strategy */
  research: boolean
  valid: boolean
  /** 0..100 (the tool's score can go below 0 when overload exceeds 100%); null when invalid */
  score: number | null
  scoreParts: ScoreParts | null
  inZoneTraffic: number
  maxOverload: number
  meanOverload: number
  sdOverload: number
  endpointSlices: number
  baselineSlices: number
  fallbackZones: string[]
  /** why the strategy did not apply as intended (hints refused, KEP-2004 downgrade, ...) */
  fallback: string | null
  unservedTraffic: number
  unassignedEndpoints: number
  zones: ZoneResult[]
  groups?: GroupResult[]
  /** topology-keys with --per-node: each client node, the key that matched and the endpoints (addresses) it routes to */
  clients?: ClientRoute[]
}

export interface ClientRoute {
  node: string
  zone: string
  /** the key that gave the endpoints ("*" included); null: none did, the node has no backends */
  matchedKey: string | null
  endpoints: string[]
}

export interface SimulationInput {
  zones: string[]
  trafficShare: Record<string, number>
  readyEndpoints: number
  endpointsByZone: Record<string, number>
}

export interface ServiceSimulation {
  namespace: string
  name: string
  addressType: string
  input: SimulationInput
  strategies: StrategyResult[]
}

export interface RolloutStepResult {
  step: number
  action: string
  oldPods: number
  newReady: number
  newNotReady: number
  readyByZone: Record<string, number>
  /** Auto: whether the controller keeps hints at this step, and why not */
  hints: 'hold' | 'refused'
  hintsReason: string | null
  strategies: {strategy: StrategyName; inZoneTraffic: number; maxOverload: number; fallbackZones: string[]; score: number | null}[]
}

export interface ZoneDisruption {
  zone: string
  readyEndpoints: number
  /** pods the zone can lose while Auto keeps hints (null: hints are not held even now) */
  canLoseBeforeHintsDrop: number | null
  /** pods the zone can lose and still have a local endpoint */
  canLoseBeforeNoLocalEndpoint: number
  /** pods the zone can lose before the named strategy falls back somewhere (null: it already does) */
  canLoseBeforeFallback: number | null
  strategy: StrategyName
}

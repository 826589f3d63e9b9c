// The advisor's vocabulary: one recommendation for one Service (src/advise/advisor.ts), the
// same object in explain, plan, check and watch. JSON-visible: schema/explain.v1.json and
// docs/json-schema.md describe it; docs/advice.md defines "now" and "after the next sync".
import type {DataPlane} from '../dataplane/types.js'

/** The Kubernetes names of the topology settings, and `none` for no topology. */
export type TopologyMode = 'Auto' | 'PreferClose' | 'PreferSameZone' | 'PreferSameNode' | 'none'

/** The one default bound on the worst per-endpoint overload (0.2 = 20% above an even share). */
export const DEFAULT_MAX_OVERLOAD = 0.2

/** Overloads within this of the bound count as at the bound (inclusive). */
export const BOUND_TOLERANCE = 1e-9

/** What the data plane does with the Service's hints in one situation (explain's figures). */
export interface Figures {
  /** Hints are (now: live on the endpoints; otherwise: written by the controller). */
  hints: boolean
  /** The controller's reason (upstream's event reason on the Auto path); for `now`, what the live hints do. */
  reason: string
  /** Expected share of requests served in their own zone (null: no traffic model). */
  inZone: number | null
  /** Largest expected per-endpoint overload (0.2 = 20% above an even share; null: no traffic model). */
  worstOverload: number | null
  /** The zone of the most loaded endpoint, when it is above an even share. */
  worstZone: string | null
  /** Zones whose nodes fall back to every endpoint (kube-proxy's fallback; hints ignored). */
  fallbackZones: string[]
}

/** One mode as after a fresh sync at today's count. */
export interface ModeOption extends Figures {
  mode: TopologyMode
  /** worstOverload <= bound (inclusive, BOUND_TOLERANCE). */
  withinBound: boolean
}

/** What the cluster shows once a step has run and the controller has synced the Service. */
export interface StepExpectation {
  mode: TopologyMode
  hints: boolean
  /** explain's in-zone share after the next sync, once the step is done. */
  inZone: number | null
}

/** One change to make: a command to paste, and the same change with plain kubectl. */
export interface Step {
  /** `kubectl topology ...` (or `kubectl scale ...` where the tool has no command for it). */
  command: string
  /** The same change with kubectl alone (null: the command already is plain kubectl). */
  alternative: string | null
  expect: StepExpectation
}

/** Auto at the nearest count the controller accepts, when it refuses today's. */
export interface ScaledAuto extends ModeOption {
  /** Ready endpoints (replicas) at which the figures are taken. */
  replicas: number
}

export interface Recommendation {
  /** The bound the options are judged against (0.2 = 20%). */
  bound: number
  /** The mode the controller takes now (the Service as written). */
  current: TopologyMode
  /** Now: what the data plane does with the hints that are live now. */
  now: Figures
  /** After the next sync: what the controller writes at its next sync, current mode. */
  predicted: Figures
  /** Each mode this version offers, at today's count, as after a fresh sync. */
  options: ModeOption[]
  /** Auto at the nearest count the controller accepts (refused today, a Deployment or StatefulSet behind the Service, no HPA); null otherwise. */
  scaledAuto: ScaledAuto | null
  recommended: TopologyMode
  /** The recommended setting keeps the worst overload within the bound. */
  meetsBound: boolean
  /** One line each, with the numbers. */
  reasons: string[]
  /** In order; empty when the recommendation is to keep what is there. */
  steps: Step[]
}

/** What the advisor takes besides the cluster and the Service. */
export interface AdviseOptions {
  kubeVersion?: string
  /** The bound (0.2 = 20%); DEFAULT_MAX_OVERLOAD when absent. */
  maxOverload?: number
  /** Traffic share per zone (default: zone CPU share, upstream's assumption). */
  traffic?: Record<string, number>
  /** The data plane (explain's option): its rules decide the in-zone figures. */
  dataPlane?: DataPlane
}

// A simulate run over a cluster state: the what-ifs applied per Service, every strategy
// scored, and (when asked) the rollout steps and each zone's disruption budget. Pure: the
// command reads the state and resolves which rollout a Service gets; this file computes.
import {adviseService} from '../advise/advisor.js'
import type {AdviseOptions} from '../advise/types.js'
import type {Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {ServiceReport} from './report.js'
import {simulateService, type SimulateOptions} from './simulate.js'
import {disruption, evaluateSteps} from './whatif-steps.js'
import {rollout} from './rollout.js'
import {addNode, drain, removeEndpoint, scaleReplicas, withoutZone} from './whatif.js'
import type {RolloutPlan, RolloutSpec} from './workload.js'

export interface WhatIfs {
  /** --without-zone, in order. */
  withoutZones: readonly string[]
  /** --drain node names. */
  drain: readonly string[]
  /** --drain-selector */
  drainSelector?: string | undefined
  /** --add-node */
  addNodes: readonly {zone: string; cpu: string; name?: string}[]
  /** --replicas */
  replicas?: number | undefined
}

/** The state as it would be for this Service: zones lost, nodes drained and added, then scaled. */
export function applyWhatIfs(state: ClusterState, svc: Service, w: WhatIfs): ClusterState {
  let s = state
  for (const z of w.withoutZones) s = withoutZone(s, z)
  if (w.drain.length > 0 || w.drainSelector !== undefined) s = drain(s, svc, {nodes: [...w.drain], ...(w.drainSelector !== undefined ? {selector: w.drainSelector} : {})})
  for (const n of w.addNodes) s = addNode(s, n)
  if (w.replicas !== undefined) s = scaleReplicas(s, svc, w.replicas)
  return s
}

/** The what-ifs in words, for the report's whatIf list. */
export function whatIfLabels(w: WhatIfs): string[] {
  const out: string[] = []
  for (const z of w.withoutZones) out.push(`without zone ${z}`)
  for (const n of w.drain) out.push(`drain ${n}`)
  if (w.drainSelector !== undefined) out.push(`drain nodes ${w.drainSelector}`)
  for (const n of w.addNodes) out.push(`add node zone=${n.zone},cpu=${n.cpu}`)
  if (w.replicas !== undefined) out.push(`replicas ${w.replicas}`)
  return out
}

/** A Service's rollout: its spec and plan, or why it has none (the other Services still get theirs). */
export type RolloutFor = (state: ClusterState, svc: Service, readyEndpoints: number) => {spec: RolloutSpec; plan: RolloutPlan} | {warning: string}

export interface RunExtras {
  /** --rollout: which rollout each Service gets. */
  rollout?: RolloutFor
  /** --disruption */
  disruption: boolean
  /** Called as soon as a Service's rollout yields a warning. */
  onWarning: (message: string) => void
  /** The advisor's options (bound, version): each report carries its recommendation. Unset: none. */
  advise?: AdviseOptions
}

/**
 * The advisor's options for a simulated Service: the traffic simulate assumed. The cpu model is
 * the advisor's own default (zone CPU shares, as explain); another model or --traffic is passed as
 * the zone shares simulate used, so both judge the same traffic.
 */
function adviseOptionsFor(report: ServiceReport, opts: SimulateOptions, base: AdviseOptions): AdviseOptions {
  const custom = opts.traffic !== undefined || (opts.trafficModel ?? 'cpu') !== 'cpu'
  const traffic = Object.fromEntries(Object.entries(report.input.trafficShare).filter(([z, share]) => z !== '' && share > 0))
  return {...base, ...(opts.kubeVersion !== undefined ? {kubeVersion: opts.kubeVersion} : {}), ...(custom ? {traffic} : {})}
}

/** Every Service scored on the state with the what-ifs applied, in order. */
export function simulateServices(state: ClusterState, services: readonly Service[], opts: SimulateOptions, w: WhatIfs, extras: RunExtras): ServiceReport[] {
  const reports: ServiceReport[] = []
  for (const svc of services) {
    const s = applyWhatIfs(state, svc, w)
    const report: ServiceReport = simulateService(s, svc, opts)
    if (extras.advise !== undefined) report.recommendation = adviseService(s, svc, adviseOptionsFor(report, opts, extras.advise))
    if (extras.rollout !== undefined) {
      const r = extras.rollout(s, svc, report.input.readyEndpoints)
      if ('warning' in r) extras.onWarning(r.warning)
      else {
        report.rolloutParameters = r.plan
        report.rollout = evaluateSteps(rollout(s, svc, r.spec), svc, opts)
      }
    }
    if (extras.disruption) {
      const primary = opts.strategies?.[0] ?? 'Auto'
      report.disruption = disruption(s, svc, opts, primary, (st, zone) => {
        const next = structuredClone(st)
        removeEndpoint(next, svc, (e) => e.zone === zone && e.conditions?.ready === true)
        return next
      })
    }
    reports.push(report)
  }
  return reports
}

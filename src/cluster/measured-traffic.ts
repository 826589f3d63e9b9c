// --traffic-from: one instant query per selected Service to a Prometheus (prometheus.ts), its
// answer read by explain/measured.ts. A Service the answer says nothing about keeps the CPU
// assumption, with a warning naming it; a Prometheus fault or a refused query ends the command
// (docs/traffic.md "Faults").
import {CliError, ExitCode} from '../errors.js'
import type {MeasuredTrafficInput} from '../explain/report.js'
import {expandTrafficQuery, measuredFromSamples, parsePromAnswer, usesPlaceholder} from '../explain/measured.js'
import type {ClusterState} from '../state/cluster-state.js'
import {workloadsBehind} from '../simulate/workload.js'
import {LABEL_ZONE, type Service} from '../upstream/api/types.js'
import {Client} from './client.js'
import {apiStatusCode, clip, scrub} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import type {PrometheusClient} from './prometheus.js'
import {listDeployments, listStatefulSets} from './resources.js'

/** Queries under way at once (one per Service). */
const PARALLEL = 4

export interface MeasuredRead {
  measured: Map<string, MeasuredTrafficInput>
  warnings: string[]
}

/** The zones a measured series may name: the Nodes' zones and the endpoints'. */
function clusterZones(state: ClusterState): Set<string> {
  const zones = new Set<string>()
  for (const n of state.nodes) {
    const z = n.metadata.labels?.[LABEL_ZONE]
    if (z) zones.add(z)
  }
  for (const s of state.endpointSlices) for (const e of s.endpoints ?? []) if (e.zone) zones.add(e.zone)
  return zones
}

/** The measured traffic of each Service (by "namespace/name"), and a warning per Service left to the CPU assumption. */
export async function readMeasuredTraffic(client: PrometheusClient, template: string, window: string, state: ClusterState, services: readonly Service[]): Promise<MeasuredRead> {
  const zones = clusterZones(state)
  const measured = new Map<string, MeasuredTrafficInput>()
  const notes = new Map<string, string>()
  const keys = new Set<string>()
  const todo: {key: string; svc: Service}[] = []
  for (const svc of services) {
    const key = `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`
    if (keys.has(key)) continue
    keys.add(key)
    todo.push({key, svc})
  }
  const fallback = 'traffic assumed proportional to zone CPU'
  const one = async ({key, svc}: {key: string; svc: Service}) => {
    const workloads = workloadsBehind(state, svc).map((w) => w.metadata.name)
    if (usesPlaceholder(template, 'workloads') && workloads.length === 0) {
      const why =
        state.deployments === undefined && state.statefulSets === undefined
          ? 'the Deployments and StatefulSets were not read (no permission to list them, or a snapshot without them)'
          : 'no Deployment or StatefulSet has pods the Service selects'
      notes.set(key, `no measured traffic for ${key}: the query narrows by the workloads behind the Service ({workloads}) and ${why}; ${fallback}`)
      return
    }
    const query = expandTrafficQuery(template, {namespace: svc.metadata.namespace ?? 'default', service: svc.metadata.name, workloads, window})
    const body = await client.query(query)
    const answer = parsePromAnswer(body)
    if ('error' in answer) {
      const text = scrub(clip(answer.error))
      const kind = answer.errorType ? `${answer.errorType}: ` : ''
      if (answer.fault === 'query')
        throw new CliError(`Prometheus at ${client.shown} refused the traffic query for ${key}: ${kind}${text}: check --traffic-query (docs/traffic.md)`, ExitCode.USAGE)
      throw new CliError(`Prometheus at ${client.shown} could not answer the traffic query for ${key}: ${kind}${text}`, ExitCode.UNREACHABLE)
    }
    const m = measuredFromSamples(answer.samples, zones)
    if ('none' in m) {
      notes.set(key, `no measured traffic for ${key} in ${client.shown}: ${m.none}; ${fallback}`)
      return
    }
    measured.set(key, {...m, source: client.shown, query})
  }
  for (let i = 0; i < todo.length; i += PARALLEL) await Promise.all(todo.slice(i, i + PARALLEL).map(one))
  return {measured, warnings: [...keys].filter((k) => notes.has(k)).map((k) => notes.get(k)!)}
}

/**
 * watch --traffic-from: the measured traffic of the watched Service, read once at start (as the
 * data plane is): with a query that narrows by {workloads}, the Deployments and StatefulSets of
 * its namespace are listed first (watch does not watch them; without permission, a warning).
 */
export async function readWatchedTraffic(
  ctx: KubeContext,
  client: PrometheusClient,
  template: string,
  window: string,
  state: ClusterState,
  namespace: string,
): Promise<MeasuredRead> {
  const st: ClusterState = {...state}
  const warnings: string[] = []
  if (usesPlaceholder(template, 'workloads')) {
    try {
      const c = await Client.connect(ctx)
      const scope = {namespace, all: false}
      const [d, s] = await Promise.all([listDeployments(c, scope), listStatefulSets(c, scope)])
      st.deployments = d
      st.statefulSets = s
    } catch (e) {
      if (!(e instanceof CliError && apiStatusCode(e.cause) === 403)) throw e
      warnings.push(`cannot list deployments and statefulsets in namespace "${namespace}" (403): the traffic query narrows by the workloads behind the Service`)
    }
  }
  const r = await readMeasuredTraffic(client, template, window, st, st.services)
  return {measured: r.measured, warnings: [...warnings, ...r.warnings]}
}

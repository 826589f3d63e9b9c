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
import {clip, scrub} from './errors.js'
import type {PrometheusClient} from './prometheus.js'

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
  const keys: string[] = []
  const todo: {key: string; svc: Service}[] = []
  for (const svc of services) {
    const key = `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`
    if (keys.includes(key)) continue
    keys.push(key)
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
  return {measured, warnings: keys.filter((k) => notes.has(k)).map((k) => notes.get(k)!)}
}

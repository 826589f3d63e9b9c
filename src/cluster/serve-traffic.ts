// serve --traffic-from: every --traffic-interval, the measured traffic of every Service the feed
// holds, read from Prometheus (measured-traffic.ts) and handed to the caller, which explains the
// Services again under it. A failed read keeps the last measured figures (marked stale by
// kubectl_topology_traffic_source_up 0) and is tried again at the next interval; nothing here
// ends the process. With a query that narrows by {workloads}, the Deployments and StatefulSets
// are listed at each read (serve does not watch them); without permission, a warning, and those
// Services keep the CPU assumption.
import {CliError} from '../errors.js'
import type {MeasuredTrafficInput} from '../explain/report.js'
import {usesPlaceholder} from '../explain/measured.js'
import type {StateIndex} from '../serve/model.js'
import type {TrafficSourceHealth} from '../serve/source.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import {Client} from './client.js'
import {apiStatusCode} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {readMeasuredTraffic} from './measured-traffic.js'
import type {PrometheusClient} from './prometheus.js'
import {listDeployments, listStatefulSets} from './resources.js'

export interface TrafficPoller {
  health(): TrafficSourceHealth
  stop(): void
}

export interface TrafficPollerEvents {
  /** A read succeeded: the measured traffic by "namespace/name", and the Services left to the CPU assumption. */
  onMeasured(measured: ReadonlyMap<string, MeasuredTrafficInput>, warnings: readonly string[]): void
  /** A read failed (one line), or a warning worth a line. */
  onProblem(line: string): void
}

/** Starts reading now, then every intervalMs after each read ends. */
export function startTrafficPoller(
  ctx: KubeContext,
  prometheus: PrometheusClient,
  o: {template: string; window: string; intervalMs: number},
  index: StateIndex,
  events: TrafficPollerEvents,
): TrafficPoller {
  const health: TrafficSourceHealth = {up: false, lastSuccessSeconds: null, errors: 0}
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let lastProblem = ''
  const problem = (line: string) => {
    // A fault that repeats at every interval is said once, until it changes or a read succeeds.
    if (line === lastProblem) return
    lastProblem = line
    events.onProblem(line)
  }
  const state = async (): Promise<{state: ClusterState; services: Service[]}> => {
    const services: Service[] = []
    const slices = []
    for (const k of index.serviceKeys()) {
      const s = index.service(k)
      if (s === undefined) continue
      services.push(s)
      slices.push(...index.slices(k))
    }
    const st: ClusterState = {nodes: index.nodes(), services, endpointSlices: slices, nodesReadable: index.nodesReadable}
    if (usesPlaceholder(o.template, 'workloads')) {
      try {
        const c = await Client.connect(ctx)
        const scope = {namespace: '', all: true}
        const [d, s] = await Promise.all([listDeployments(c, scope), listStatefulSets(c, scope)])
        st.deployments = d
        st.statefulSets = s
      } catch (e) {
        if (!(e instanceof CliError && apiStatusCode(e.cause) === 403)) throw e
        problem(
          'cannot list deployments and statefulsets (403): the Services of the traffic query that narrows by {workloads} keep the CPU assumption; grant list on both (apps) to measure them',
        )
      }
    }
    return {state: st, services}
  }
  const tick = async () => {
    timer = undefined
    try {
      const {state: st, services} = await state()
      const r = await readMeasuredTraffic(prometheus, o.template, o.window, st, services)
      if (stopped) return
      health.up = true
      health.lastSuccessSeconds = Math.floor(Date.now() / 1000)
      lastProblem = ''
      events.onMeasured(r.measured, r.warnings)
    } catch (e) {
      if (stopped) return
      health.up = false
      health.errors++
      problem(`traffic: ${e instanceof Error ? e.message : String(e)} (the last measured figures are kept; next try in ${Math.round(o.intervalMs / 1000)} s)`)
    }
    if (!stopped) {
      timer = setTimeout(() => void tick(), o.intervalMs)
      timer.unref()
    }
  }
  void tick()
  return {
    health: () => ({...health}),
    stop: () => {
      stopped = true
      if (timer) clearTimeout(timer)
      prometheus.close()
    },
  }
}

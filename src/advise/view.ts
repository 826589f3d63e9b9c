// The Service's own view of the cluster, which the advisor explains each mode on: every Node,
// the Service, its EndpointSlices and its Events. The slices and Events of every Service are
// grouped ONCE per cluster (memo by the arrays' identity: the engine never mutates its input),
// not found by a scan of the whole cluster per Service.
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME, type EndpointSlice, type EventObject, type Service} from '../upstream/api/types.js'

const keyOf = (ns: string | undefined, name: string | undefined) => `${ns ?? 'default'}/${name ?? ''}`

const SLICES = new WeakMap<readonly EndpointSlice[], Map<string, EndpointSlice[]>>()
const EVENTS = new WeakMap<readonly EventObject[], Map<string, EventObject[]>>()

function group<T>(memo: WeakMap<readonly T[], Map<string, T[]>>, items: readonly T[], key: (x: T) => string | null): Map<string, T[]> {
  let m = memo.get(items)
  if (m === undefined) {
    m = new Map()
    for (const x of items) {
      const k = key(x)
      if (k === null) continue
      const list = m.get(k)
      if (list) list.push(x)
      else m.set(k, [x])
    }
    memo.set(items, m)
  }
  return m
}

/** The Service's EndpointSlices, in the cluster's order (simulate's slicesOf, grouped once per cluster). */
export function ownSlices(state: ClusterState, svc: Service): EndpointSlice[] {
  const m = group(SLICES, state.endpointSlices, (s) => {
    const name = s.metadata.labels?.[LABEL_SERVICE_NAME]
    return name === undefined ? null : keyOf(s.metadata.namespace, name)
  })
  return (m.get(keyOf(svc.metadata.namespace, svc.metadata.name)) ?? []).slice()
}

/** The Events about the Service, in the cluster's order. */
function ownEvents(events: readonly EventObject[], svc: Service): EventObject[] {
  const m = group(EVENTS, events, (e) => (e.involvedObject?.kind === 'Service' ? keyOf(e.involvedObject.namespace, e.involvedObject.name) : null))
  return (m.get(keyOf(svc.metadata.namespace, svc.metadata.name)) ?? []).slice()
}

/** The Service's own view: every Node, the Service, its slices and its Events. */
export function ownView(state: ClusterState, svc: Service): ClusterState {
  return {
    ...state,
    services: [svc],
    endpointSlices: ownSlices(state, svc),
    ...(state.events ? {events: ownEvents(state.events, svc)} : {}),
  }
}

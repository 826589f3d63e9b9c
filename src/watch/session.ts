// What `kubectl topology watch` decides as changes arrive, apart from the API watches
// (cluster/watch.ts), the timers and the output: the explain options, the connection status
// line, which Events are new, and the next state of the view after a recompute. Pure.
import type {ExplainOptions} from '../explain/report.js'
import type {EventObject} from '../upstream/api/types.js'
import type {Change, WatchFrame} from './model.js'

/** The view's state (render/watch-lines.ts WatchViewState has the same shape). */
export interface WatchView {
  frame: WatchFrame
  previous: WatchFrame | null
  changes: {time: string; change: Change}[]
  events: {time: string; event: EventObject}[]
  status: string
  updatedAt: string
}

/** How many changes and events the view keeps (newest last). */
const KEEP_CHANGES = 50
const KEEP_EVENTS = 20

/** A reflector's state as cluster/watch.ts reports it. */
export type ResourceStatus = {state: 'synced'; items: number} | {state: 'relisting'; reason: string} | {state: 'backoff'; delayMs: number; error: string} | {state: 'watching'}

/** --kube-version, else the server's version; --traffic. */
export function explainOptions(
  kubeVersionFlag: string | undefined,
  serverVersion: string | undefined,
  traffic: Record<string, number> | undefined,
  dataPlane?: ExplainOptions['dataPlane'],
  routes?: ExplainOptions['routes'],
): ExplainOptions {
  const kubeVersion = kubeVersionFlag ?? serverVersion
  const o: ExplainOptions = {versionSource: kubeVersionFlag ? 'flag' : kubeVersion ? 'server' : 'default'}
  if (kubeVersion) o.kubeVersion = kubeVersion
  if (traffic) o.traffic = traffic
  if (dataPlane) o.dataPlane = dataPlane
  if (routes) o.routes = routes
  return o
}

/** One resource's status in words. */
export function resourceStatusText(s: ResourceStatus): string {
  switch (s.state) {
    case 'backoff':
      return `reconnecting in ${s.delayMs >= 1000 ? `${(s.delayMs / 1000).toFixed(1)}s` : `${s.delayMs}ms`} (${s.error})`
    case 'relisting':
      return `re-listing (${s.reason})`
    case 'synced':
      return `synced (${s.items})`
    default:
      return 'watching'
  }
}

/** Without a terminal: whether a status change is worth a line (trouble, and recovery from it). */
export const statusWorthALine = (s: ResourceStatus, before: string | undefined): boolean =>
  s.state === 'backoff' || s.state === 'relisting' || (s.state === 'watching' && before?.startsWith('reconnecting') === true)

/** The status line: what is watched, or the resources that are not (yet) watching. */
export function statusText(statuses: ReadonlyMap<string, string>): string {
  const bad = [...statuses.entries()].filter(([, s]) => s !== 'watching' && !s.startsWith('synced'))
  return bad.length === 0 ? 'watching Nodes, the Service, its EndpointSlices and Events' : bad.map(([r, s]) => `${r}: ${s}`).join('; ')
}

/** MODIFIED events repeat the object: an Event is new when its count, message or time changed. */
export const eventKey = (e: EventObject): string => e.metadata.uid ?? e.metadata.name
export const eventSignature = (e: EventObject): string => `${e.count ?? 1}|${e.message ?? ''}|${e.lastTimestamp ?? e.eventTime ?? ''}`

/** When an Event is shown: its own time for those listed at start, else now. */
export function eventTime(e: EventObject, initial: boolean, now: string): string {
  return initial ? (e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? now).replace(/\.\d+Z$/, 'Z') : now
}

/** The view after a recompute: the new frame, the changes and events appended (bounded), the status. */
export function nextView(
  view: WatchView | null,
  prev: WatchFrame | null,
  next: WatchFrame,
  changes: readonly Change[],
  events: readonly {time: string; event: EventObject}[],
  status: string,
  time: string,
): WatchView {
  const base: WatchView = view ?? {frame: next, previous: null, changes: [], events: [], status, updatedAt: time}
  return {
    frame: next,
    previous: changes.length > 0 ? prev : base.previous,
    changes: [...base.changes, ...changes.map((change) => ({time, change}))].slice(-KEEP_CHANGES),
    events: [...base.events, ...events].slice(-KEEP_EVENTS),
    status,
    updatedAt: changes.length > 0 || prev === null ? time : base.updatedAt,
  }
}

/** After these changes the plain output restates where the Service stands. */
export const restatesSummary = (changes: readonly Change[]): boolean => changes.some((c) => c.kind === 'hints-set' || c.kind === 'hints-dropped' || c.kind === 'service-added')

// explain's figures for a Service as it is (now, after the next sync) and under each mode (as
// after a fresh sync). A mode is set exactly as `kubectl topology apply --mode` sets it
// (apply/plan.ts desiredFields), so the figures are those of the Service the printed command
// leaves behind.
import {explain, type ServiceExplanation, type ZoneRow} from '../explain/report.js'
import type {FiguresShare} from '../explain/figures-share.js'
import {desiredFields, topologyFieldsOf, type ModeValue} from '../apply/plan.js'
import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {EndpointSlice, Service} from '../upstream/api/types.js'
import {endpointReady} from '../upstream/endpointslice/topologycache/utils.js'
import type {AdviseOptions, Figures, TopologyMode} from './types.js'

/** apply's name of a mode (`none` is apply's `--mode none`). */
export const applyModeOf = (m: TopologyMode): ModeValue => m

/**
 * The Service as `kubectl topology apply --mode <mode>` leaves it: apply's desiredFields decides
 * the two annotations and spec.trafficDistribution, set here as apply's withFields sets them but
 * on copies of metadata, its annotations and spec only. withFields structuredClones the whole
 * Service, whose fixed cost alone was the largest single cost of the advisor's per-mode
 * evaluations; the rest of the Service is shared with `svc` (the engine never mutates its input).
 * A test compares the two: the same keys, values and order for every mode.
 */
export function serviceWithMode(svc: Service, mode: TopologyMode): Service {
  const f = desiredFields(topologyFieldsOf(svc), applyModeOf(mode)).fields
  const ann: Record<string, string> = {}
  const from = svc.metadata.annotations ?? {}
  for (const k of Object.keys(from)) if (k !== ANNOTATION_TOPOLOGY_MODE && k !== ANNOTATION_TOPOLOGY_AWARE_HINTS) define(ann, k, from[k])
  if (f.topologyMode !== null) ann[ANNOTATION_TOPOLOGY_MODE] = f.topologyMode
  if (f.topologyAwareHints !== null) ann[ANNOTATION_TOPOLOGY_AWARE_HINTS] = f.topologyAwareHints
  const metadata = replaced(svc.metadata, 'annotations', Object.keys(ann).length > 0 ? ann : DROP)
  const spec = replaced(svc.spec ?? {}, 'trafficDistribution', f.trafficDistribution === null ? DROP : f.trafficDistribution)
  return {...svc, metadata, spec}
}

const DROP = Symbol('drop')
/** `o[k] = v` as an own data property (a key "__proto__" stays a plain key, as in a spread). */
function define(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, {value: v, enumerable: true, writable: true, configurable: true})
  else o[k] = v
}
/**
 * A copy of `o` with `key` set to `value` (in its place, or last when absent) or left out (DROP):
 * what a spread, then an assignment or a `delete`, gives (the same keys in the same order). A key
 * that goes is left out key by key: `delete` turns the copy into a dictionary-mode object, which
 * was most of this function's time and made every later read of the Service's spec slower in
 * each mode's explain.
 */
function replaced<T extends object>(o: T, key: keyof T & string, value: unknown): T {
  const src = o as Record<string, unknown>
  // Unless a key goes, a spread is the copy (V8 clones the object's layout in one step, where
  // the loop below adds the keys one by one), and an assignment sets the key in its place or last.
  if (value !== DROP) {
    const out: Record<string, unknown> = {...src}
    out[key] = value
    return out as T
  }
  if (!Object.hasOwn(src, key)) return {...src} as T
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(src)) if (k !== key) define(out, k, src[k])
  return out as T
}

/**
 * Whether `svc`'s figures under `mode` are those of the Service as it is, so that the advisor can
 * read them from explain's report of it instead of evaluating the mode again (ours): the mode is
 * not Auto, and `kubectl topology apply --mode <mode>` changes none of the three fields (each is
 * as desiredFields leaves it, the annotations strings or absent). Then the evaluated Service has
 * the same fields as `svc`, so the same path. Off Auto's path, with `slices` as
 * nextSyncIsFresh requires, a fresh sync and the next one predict the same hints and figures.
 * Auto's next sync keeps valid existing hints (topologycache AddHints with unchanged slices),
 * which a fresh sync need not. A property test compares the two on random clusters.
 */
export function modeKeepsService(svc: Service, mode: TopologyMode): boolean {
  if (mode === 'Auto') return false
  const now = topologyFieldsOf(svc)
  const f = desiredFields(now, applyModeOf(mode)).fields
  const a = svc.metadata.annotations ?? {}
  const raw = (k: string) => (Object.hasOwn(a, k) ? a[k] : null)
  return (
    f.topologyMode === raw(ANNOTATION_TOPOLOGY_MODE) &&
    f.topologyAwareHints === raw(ANNOTATION_TOPOLOGY_AWARE_HINTS) &&
    f.trafficDistribution === (svc.spec?.trafficDistribution ?? null)
  )
}

/**
 * Whether, off Auto's path, the next sync of `slices` writes the hints a fresh one does (ours):
 * no endpoint that is not ready (topologycache utils.go EndpointReady) carries hints. The none
 * path removes every hint (RemoveHintsFromSlices); trafficdist.go's heuristics write each ready
 * endpoint's own zone (and node) and skip the others in both needsUpdate and update, so the next
 * sync keeps a not-ready endpoint's hints, which a fresh sync (hints cleared first) does not.
 */
export function nextSyncIsFresh(slices: readonly EndpointSlice[]): boolean {
  for (let i = 0; i < slices.length; i++) {
    const eps = slices[i]!.endpoints ?? []
    for (let j = 0; j < eps.length; j++) if (eps[j]!.hints != null && !endpointReady(eps[j]!)) return false
  }
  return true
}

/** The mode the controller takes for the Service as written (explain's path). */
export function currentModeOf(s: ServiceExplanation): TopologyMode {
  if (s.mode.path === 'topology-mode-auto') return 'Auto'
  if (s.mode.path === 'traffic-distribution') {
    const v = s.mode.trafficDistribution
    if (v === 'PreferSameZone' || v === 'PreferSameNode' || v === 'PreferClose') return v
  }
  return 'none'
}

/** kube-proxy verdicts that are not about hints (nothing to route to; a data plane that ignores them; not proxied). */
const NOT_TOPOLOGY = new Set(['no-endpoints', 'no-ready-endpoints', 'ignored-by-data-plane', 'not-proxied'])
const fallsBack = (v: ZoneRow['kubeProxy']) => v.fallback && !NOT_TOPOLOGY.has(v.reason ?? '')
const hasNodes = (z: ZoneRow) => z.nodes.counted + z.nodes.ignored > 0

/** Now: what the data plane does with the hints live on the endpoints now. */
export function nowFigures(s: ServiceExplanation): Figures {
  const hints = s.totals.liveHints > 0
  const fallbackZones = hints ? s.zones.filter((z) => hasNodes(z) && fallsBack(z.kubeProxy)).map((z) => z.name) : []
  return {
    hints,
    reason: !hints ? 'NoLiveHints' : fallbackZones.length > 0 ? 'LiveHintsIgnoredInSomeZones' : 'LiveHintsInUse',
    inZone: s.traffic.inZoneShareLive,
    worstOverload: s.traffic.maxEndpointOverloadLive,
    worstZone: s.traffic.worstZoneLive,
    fallbackZones,
  }
}

/** After the next sync: what the controller writes at its next sync (explain's prediction of the report). */
export function predictedFigures(s: ServiceExplanation): Figures {
  return {
    hints: s.controller.hintsSet,
    reason: s.controller.reason,
    inZone: s.traffic.inZoneSharePredicted,
    worstOverload: s.traffic.maxEndpointOverloadPredicted,
    worstZone: s.traffic.worstZonePredicted,
    fallbackZones: s.controller.hintsSet ? s.zones.filter((z) => hasNodes(z) && fallsBack(z.kubeProxyPredicted)).map((z) => z.name) : [],
  }
}

/**
 * explain's figures for the Service in `state` with `mode` set, as after a fresh sync (every slice
 * rewritten). `share`: one per Service, passed to each of its modes (what no mode changes is
 * computed once; src/explain/figures-share.ts).
 */
export function figuresWithMode(state: ClusterState, svc: Service, mode: TopologyMode, opts: AdviseOptions, share?: FiguresShare): Figures | null {
  const s = serviceWithMode(svc, mode)
  const services = state.services.map((x) => (x === svc ? s : x))
  if (!services.includes(s)) services.push(s)
  const report = explain({...state, services}, [s], {
    kubeVersion: opts.kubeVersion,
    traffic: opts.traffic,
    prediction: 'fresh',
    figuresOnly: true,
    ...(share ? {figuresShare: share} : {}),
    ...(opts.dataPlane ? {dataPlane: opts.dataPlane} : {}),
  })
  const first = report.services[0]
  return first === undefined ? null : predictedFigures(first)
}

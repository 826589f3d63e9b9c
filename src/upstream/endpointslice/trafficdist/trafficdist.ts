// Port of k8s.io/endpointslice trafficdist/trafficdist.go (k8s.io/endpointslice v0.36.3, from
// Kubernetes v1.36.3): `ReconcileHints`, the hint writer for Service.spec.trafficDistribution,
// with its `defaultHeuristic` and `preferCloseHeuristic`; and, for Kubernetes 1.28-1.32, the
// PreferClose heuristic trafficdist.go had before the 1.33 change (`legacyCloseHeuristic`).
// * PreferClose / PreferSameZone / PreferSameNode use the "close" heuristic: every ready
//   endpoint is hinted for its own zone (and, for PreferSameNode, its own node);
// * anything else (unset, unknown) uses the default heuristic, which clears every hint.
// Unchanged slices that need an update are deep-copied into the update list; inputs are
// never mutated (upstream mutates create/update in place; we return copies instead).
// trafficdist.go's own `endpointReady` is the same test as topologycache/utils.go
// `EndpointReady`, which we use.

import {TD_PREFER_CLOSE, TD_PREFER_SAME_NODE, TD_PREFER_SAME_ZONE, type Endpoint, type EndpointHints, type EndpointSlice} from '../../api/types.js'
import type {SliceLists} from '../topologycache/sliceinfo.js'
import {cloneSlice, endpointReady} from '../topologycache/utils.js'

export type {SliceLists}

export interface ReconcileHintsOptions {
  /**
   * Pre-1.33 heuristic (Features.trafficDistEmptyZoneHint): a ready endpoint without a zone
   * gets `forZones: [{name: ""}]`; a slice "needs update" unless every ready endpoint has
   * exactly one zone hint equal to its zone ("" when unset); node hints are neither checked
   * nor written (update replaces the whole hints object, dropping any forNodes); PreferClose is
   * the only close value (PreferSameZone/PreferSameNode fall to the default heuristic).
   */
  emptyZoneHint?: boolean
}

/** trafficdist.go `closeTrafficDistribution`. */
const CLOSE_VALUES = new Set([TD_PREFER_CLOSE, TD_PREFER_SAME_ZONE, TD_PREFER_SAME_NODE])

/** trafficdist.go `heuristic`. */
interface Heuristic {
  needsUpdate(slice: EndpointSlice): boolean
  update(slice: EndpointSlice): void
}

/** Go's `== nil` on a pointer or slice field. */
function isNil<T>(v: T | null | undefined): v is null | undefined {
  return v === null || v === undefined
}

/** Go's `len()` of a slice that may be nil. */
function len(a: unknown[] | null | undefined): number {
  return a == null ? 0 : a.length
}

/** trafficdist.go `defaultHeuristic`: cluster-wide routing, so every hint is removed. */
const defaultHeuristic: Heuristic = {
  needsUpdate(slice) {
    for (const ep of slice.endpoints ?? []) {
      if (!isNil(ep.hints)) return true
    }
    return false
  },
  update(slice) {
    for (const ep of slice.endpoints ?? []) delete ep.hints
  },
}

/** The PreferClose heuristic of trafficdist.go before the 1.33 change (Kubernetes v1.32 `preferCloseHeuristic`). */
const legacyCloseHeuristic: Heuristic = {
  needsUpdate(slice) {
    for (const ep of slice.endpoints ?? []) {
      if (!endpointReady(ep)) continue
      const zone = ep.zone ?? ''
      const h = ep.hints
      if (isNil(h) || len(h.forZones) !== 1 || h.forZones![0]!.name !== zone) return true
    }
    return false
  },
  update(slice) {
    for (const ep of slice.endpoints ?? []) {
      if (!endpointReady(ep)) continue
      ep.hints = {forZones: [{name: ep.zone ?? ''}]}
    }
  },
}

/** trafficdist.go `preferCloseHeuristic` (`generateNodeHints` for PreferSameNode). */
function closeHeuristic(generateNodeHints: boolean): Heuristic {
  /** The zone hint a ready endpoint should carry, or undefined for none. */
  const wantZone = (ep: Endpoint): string | undefined => (!isNil(ep.zone) ? ep.zone : undefined)
  const wantNode = (ep: Endpoint): string | undefined => (generateNodeHints && !isNil(ep.nodeName) ? ep.nodeName : undefined)

  return {
    needsUpdate(slice) {
      for (const ep of slice.endpoints ?? []) {
        if (!endpointReady(ep)) continue
        const h = ep.hints
        const zone = wantZone(ep)
        if (zone !== undefined) {
          if (isNil(h) || len(h.forZones) !== 1 || h.forZones![0]!.name !== zone) return true
        } else if (!isNil(h) && len(h.forZones) > 0) {
          return true
        }
        const node = wantNode(ep)
        if (node !== undefined) {
          if (isNil(h) || len(h.forNodes) !== 1 || h.forNodes![0]!.name !== node) return true
        } else if (!isNil(h) && len(h.forNodes) > 0) {
          return true
        }
      }
      return false
    },
    update(slice) {
      for (const ep of slice.endpoints ?? []) {
        if (!endpointReady(ep)) continue
        const zone = wantZone(ep)
        const node = wantNode(ep)
        if (zone === undefined && node === undefined) {
          delete ep.hints
          continue
        }
        const hints: EndpointHints = {}
        if (zone !== undefined) hints.forZones = [{name: zone}]
        if (node !== undefined) hints.forNodes = [{name: node}]
        ep.hints = hints
      }
    },
  }
}

/**
 * trafficdist.go `ReconcileHints`: reconciles hints for the trafficDistribution path, exactly as upstream.
 * Returns new lists: create/update slices are deep copies with hints written; unchanged slices
 * that need an update are deep-copied and appended to the update list (in their order); the
 * remaining unchanged slices are returned as the same objects, untouched.
 */
export function reconcileHints(trafficDistribution: string | undefined | null, slices: SliceLists, opts: ReconcileHintsOptions = {}): SliceLists {
  let h = defaultHeuristic
  if (opts.emptyZoneHint === true) {
    // Before 1.33 the only close value trafficdist knew was PreferClose.
    if (trafficDistribution === TD_PREFER_CLOSE) h = legacyCloseHeuristic
  } else if (!isNil(trafficDistribution) && CLOSE_VALUES.has(trafficDistribution)) {
    h = closeHeuristic(trafficDistribution === TD_PREFER_SAME_NODE)
  }

  const toCreate = slices.toCreate.map((s) => cloneSlice(s))
  const toUpdate = slices.toUpdate.map((s) => cloneSlice(s))
  const unchanged: EndpointSlice[] = []
  for (const slice of slices.unchanged) {
    if (h.needsUpdate(slice)) toUpdate.push(cloneSlice(slice))
    else unchanged.push(slice)
  }
  for (const s of toCreate) h.update(s)
  for (const s of toUpdate) h.update(s)
  return {toCreate, toUpdate, unchanged}
}

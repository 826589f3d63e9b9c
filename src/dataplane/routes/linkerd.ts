// Linkerd: meshed Pods' proxies get their endpoints from the destination controller, which
// filters them by zone hints itself. Pure.
//
// Sources (linkerd/linkerd2; HEAD read at b24cd4059841f8cee2fb7a9c2ac23a693c583579, edge-26.8.3):
// - controller/api/destination/watcher/filtered_listener_group.go `filterAddresses` (HEAD
//   L111-133): if any endpoint lacks hints.forZones, all endpoints; else those hinted for the
//   client's node's zone; none -> all. hints.forNodes and trafficDistribution are not read.
// - First in stable-2.12.0 (#6698): controller/api/destination/endpoint_translator.go
//   `filterAddresses` (L117-157), the same rule.
// Buoyant's HAZL (high-availability zonal load balancing) is in Buoyant Enterprise only and is
// not detected.

import {ref} from '../objects.js'
import {parseSemver} from '../objects.js'
import type {TopologySetting} from './setting.js'
import type {ClientPath, ControlPlaneDeployment, NamespaceMeta, ProxyFound} from './types.js'

const LINKERD_SOURCE = 'linkerd/linkerd2 controller/api/destination/watcher/filtered_listener_group.go filterAddresses (stable-2.12.0: endpoint_translator.go L117)'

/** "stable-2.14.10" -> "2.14.10", "enterprise-2.16.1" -> "2.16.1", "edge-24.11.8" -> "edge-24.11.8", "v2.11.0" -> "2.11.0". */
export function linkerdVersion(image: string | undefined): string | undefined {
  const tag = /:([^:@/]+)(@|$)/.exec(image ?? '')?.[1]
  if (!tag) return undefined
  const m = /^(?:stable-|enterprise-|v)?(\d+\.\d+(?:\.\d+)?)/.exec(tag)
  if (m) return m[1]
  const e = /^edge-(\d+\.\d+\.\d+)/.exec(tag)
  return e ? `edge-${e[1]}` : undefined
}

/** The linkerd-destination Deployment (any namespace): container "destination", image .../controller:<tag>. */
export function findLinkerd(deployments: readonly ControlPlaneDeployment[]): ProxyFound | undefined {
  const d = deployments.find((x) => x.metadata.name === 'linkerd-destination')
  if (!d) return undefined
  const cs = d.spec?.template?.spec?.containers ?? []
  const c = cs.find((x) => x.name === 'destination') ?? cs[0]
  const version = linkerdVersion(c?.image)
  return {name: 'linkerd', ...(version ? {version} : {}), settings: {}, evidence: [`${ref(d, 'Deployment')}: image ${c?.image ?? '(none)'}`]}
}

/** Namespaces annotated linkerd.io/inject: enabled. */
export function linkerdNamespaces(namespaces: readonly NamespaceMeta[]): string[] {
  return namespaces.filter((n) => n.metadata.annotations?.['linkerd.io/inject'] === 'enabled').map((n) => n.metadata.name)
}

/** Zone hints from stable-2.12 (edge releases from 22.x); false before, undefined when the version is unknown. */
function readsZoneHints(version: string | undefined): boolean | undefined {
  if (version === undefined) return undefined
  const edge = /^edge-(\d+)\./.exec(version)
  if (edge) return Number(edge[1]) >= 22
  const s = parseSemver(version)
  if (!s) return undefined
  return s.major > 2 || (s.major === 2 && s.minor >= 12)
}

export function linkerdRule(version: string | undefined, s: TopologySetting): Pick<ClientPath, 'zoneHints' | 'nodeHints' | 'verdict' | 'does' | 'source'> {
  const zone = readsZoneHints(version)
  const base = {zoneHints: zone ?? ('unknown' as const), nodeHints: false as const, source: LINKERD_SOURCE}
  if (s.internalTrafficPolicyLocal) return {...base, verdict: 'honours', does: "Linkerd's destination controller keeps internalTrafficPolicy: Local to the client's node"}
  if (zone === false) return {...base, verdict: s.asks === 'none' ? 'not-asked' : 'ignores', does: `Linkerd ${version} reads no hints (zone hints from stable-2.12): all endpoints`}
  if (zone === undefined && s.asks !== 'none') return {...base, verdict: 'unknown', does: 'Linkerd reads zone hints from stable-2.12; its version is unknown'}
  const how =
    "the destination controller keeps the endpoints hinted for the client's zone when every endpoint has a zone hint, else all (as kube-proxy, without the annotation kube-proxy 1.28-1.30 needs)"
  if (s.asks === 'node') return {...base, verdict: 'partial', does: `PreferSameNode acts as PreferSameZone: Linkerd does not read hints.forNodes; ${how}`}
  return {...base, verdict: s.asks === 'none' ? 'not-asked' : 'honours', does: how}
}

// Who routes each request, in words: the header line naming the meshes and gateways found, and
// per Service one line per client path that bypasses the node data plane. Formats only; the
// text from the cluster is escaped by the caller (escapeDeep) or here (escapeTerminal).

import type {ClientPath, PathVerdict, ProxyName, RoutesFound, ServiceRoutes} from '../dataplane/routes/types.js'
import {escapeTerminal} from './escape.js'
import {PLAIN, type Style} from './style.js'

const PROXY_DISPLAY: Record<ProxyName | 'node', string> = {
  'istio-sidecar': 'Istio sidecar',
  'istio-ztunnel': 'Istio ztunnel',
  'istio-waypoint': 'Istio waypoint',
  'istio-gateway': 'Istio gateway',
  linkerd: 'Linkerd',
  'ingress-nginx': 'ingress-nginx',
  'envoy-gateway': 'Envoy Gateway',
  'gateway-api': 'Gateway API',
  node: 'node data plane',
}

const VERDICT: Record<PathVerdict, string> = {
  honours: 'honours the setting',
  partial: 'honours it in part',
  ignores: 'ignores the setting',
  'not-asked': 'no setting asked',
  unknown: 'unknown',
}

/** "Meshes and gateways: Istio 1.27.1, Envoy Gateway 1.9.0 (detected)", or none found. */
export function routesLine(found: RoutesFound): string {
  const names = found.proxies.map((p) => `${PROXY_DISPLAY[p.name] === 'Istio sidecar' ? 'Istio' : PROXY_DISPLAY[p.name]}${p.version ? ` ${p.version}` : ''}`)
  const from = found.source === 'snapshot' ? 'from the snapshot' : 'detected'
  return escapeTerminal(`Meshes and gateways: ${names.length > 0 ? names.join(', ') : 'none found'} (${from})`)
}

function pathLine(p: ClientPath, style: Style): string {
  const who = escapeTerminal(`${PROXY_DISPLAY[p.via]}${p.version ? ` ${p.version}` : ''}`)
  const v = VERDICT[p.verdict]
  const verdict = p.verdict === 'ignores' || p.verdict === 'partial' ? style.bad(v) : p.verdict === 'honours' ? style.ok(v) : style.dim(v)
  return `${who}, ${escapeTerminal(p.clients)}: ${verdict}: ${escapeTerminal(p.does)}`
}

/** The "Clients:" block of one Service: one line per path, then what cannot be known. */
export function clientPathLines(r: ServiceRoutes, style: Style = PLAIN, label = 'Clients:     ', indent = '             '): string[] {
  const lines: string[] = []
  const first = (s: string) => (lines.length === 0 ? `${label}${s}` : `${indent}${s}`)
  for (const p of r.paths) lines.push(first(pathLine(p, style)))
  lines.push(
    first(style.dim(r.paths.length > 0 ? 'every other client: the node data plane' : 'every client reaches it through the node data plane (no mesh or gateway path found)')),
  )
  for (const u of r.unknown) lines.push(`${indent}${style.dim(`not known: ${escapeTerminal(u)}`)}`)
  return lines
}

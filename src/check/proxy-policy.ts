// proxy-topology: the clients of a Service do not reach it through a mesh or gateway proxy that
// ignores its topology setting (src/dataplane/routes/). Pure; read from explain's clientPaths.

import {pathsIgnoringSetting} from '../dataplane/routes/routes.js'
import type {ServiceExplanation} from '../explain/report.js'
import type {PolicyResult} from './check.js'

const who = (p: {via: string; version?: string; clients: string}) => `${p.via}${p.version ? ` ${p.version}` : ''} (${p.clients})`

export function checkProxyTopology(s: ServiceExplanation): PolicyResult {
  const r = s.clientPaths
  const res = (status: PolicyResult['status'], message: string, details: string[] = []): PolicyResult => ({policy: 'proxy-topology', status, message, details})
  if (!r) return res('skip', 'meshes and gateways were not read (add --client-paths)')
  const bypass = r.paths.filter((p) => p.bypassesNode)
  if (bypass.length === 0)
    return res(
      'pass',
      'no client path bypasses the node data plane',
      r.unknown.map((u) => `not known: ${u}`),
    )
  if (bypass.every((p) => p.verdict === 'not-asked')) return res('skip', `topology-aware routing is not requested (${r.setting})`)
  const bad = pathsIgnoringSetting(r)
  const unknown = bypass.filter((p) => p.verdict === 'unknown')
  const notes = [...unknown.map((p) => `unknown: ${who(p)}: ${p.does}`), ...r.unknown.map((u) => `not known: ${u}`)]
  if (bad.length > 0) {
    const first = bad[0]!
    const what =
      bad.length === 1 ? (first.verdict === 'ignores' ? 'a proxy that ignores' : 'a proxy that honours only part of') : `${bad.length} proxies that ignore all or part of`
    const message = `clients reach this Service through ${what} its topology setting (${r.setting}): ${who(first)}: ${first.does}`
    return res('fail', message, [...bad.slice(1).map((p) => `${p.verdict}: ${who(p)}: ${p.does}`), ...notes])
  }
  return res('pass', `every mesh and gateway path honours ${r.setting}${unknown.length > 0 ? ` (${unknown.length} not known)` : ''}`, notes)
}

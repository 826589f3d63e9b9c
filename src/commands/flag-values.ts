// Parsing and checking flag values several commands share: one wording for each mistake.
import {CliError, ExitCode} from '../errors.js'
import {parseVersion} from '../upstream/features.js'
import {LABEL_ZONE} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'

/** --kube-version must be a Kubernetes version (1.33, v1.31.0-eks-abc, 1.30+); undefined is fine. */
export function checkKubeVersion(value: string | undefined): void {
  if (value === undefined) return
  try {
    parseVersion(value)
  } catch (e) {
    throw new CliError(`--kube-version: ${(e as Error).message}`, ExitCode.USAGE)
  }
}

/** "zone-a=0.5,zone-b=0.3" -> {zone-a: 0.5, zone-b: 0.3} */
export function parseTraffic(text: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const part of text.split(',')) {
    const m = part.trim().match(/^([^=\s]+)=([0-9]*\.?[0-9]+(?:e-?\d+)?)$/)
    if (!m) throw new CliError(`--traffic: invalid entry "${part.trim()}": expected ZONE=SHARE, e.g. zone-a=0.5,zone-b=0.5`, ExitCode.USAGE)
    const v = Number(m[2])
    if (!Number.isFinite(v) || v < 0) throw new CliError(`--traffic: share for "${m[1]}" must be a non-negative number`, ExitCode.USAGE)
    out[m[1]!] = v
  }
  const sum = Object.values(out).reduce((a, b) => a + b, 0)
  if (sum <= 0) throw new CliError('--traffic: the shares add up to zero', ExitCode.USAGE)
  // Shares are relative: 1e308 per zone adds up to Infinity, and every share / Infinity was 0
  // (issue 20). Scaled by the largest when the sum overflows; the ratios are the same.
  if (!Number.isFinite(sum)) {
    const top = Object.values(out).reduce((a, b) => (b > a ? b : a), 0)
    for (const k of Object.keys(out)) out[k] = out[k]! / top
  }
  return out
}

/**
 * --traffic names zones of the cluster read: an unknown name is an error naming the known zones
 * (as kubectl names what exists when a name does not), not a share silently ignored.
 */
export function checkTrafficZones(traffic: Record<string, number> | undefined, state: ClusterState): void {
  if (traffic === undefined) return
  const zones = new Set<string>()
  for (const n of state.nodes) {
    const z = n.metadata.labels?.[LABEL_ZONE]
    if (z) zones.add(z)
  }
  for (const s of state.endpointSlices) for (const e of s.endpoints ?? []) if (e.zone) zones.add(e.zone)
  const unknown = Object.keys(traffic).filter((z) => !zones.has(z))
  if (unknown.length === 0) return
  const known = [...zones].sort().join(', ') || 'none'
  throw new CliError(`--traffic: unknown zone${unknown.length > 1 ? 's' : ''} ${unknown.map((z) => `"${z}"`).join(', ')} (zones in the cluster: ${known})`, ExitCode.USAGE)
}

/** check --max-overload: "0.2", "20%" -> 0.2 */
export function parseRatio(text: string): number {
  const m = text.trim().match(/^([0-9]*\.?[0-9]+)(%?)$/)
  if (!m) throw new CliError(`--max-overload: invalid value "${text}": use a ratio such as 0.2 or a percentage such as 20%`, ExitCode.USAGE)
  const v = Number(m[1]) / (m[2] ? 100 : 1)
  if (!Number.isFinite(v)) throw new CliError(`--max-overload: invalid value "${text}"`, ExitCode.USAGE)
  return v
}

/** check --min-endpoints-per-zone: a whole number. */
export function parseCount(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new CliError(`--min-endpoints-per-zone: invalid value "${text}": use a whole number such as 2`, ExitCode.USAGE)
  return Number(text.trim())
}

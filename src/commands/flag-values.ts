// Parsing and checking flag values several commands share: one wording for each mistake.
import {CliError, ExitCode} from '../errors.js'
import {parseVersion} from '../upstream/features.js'
import {LABEL_ZONE} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {parseRatio} from '../state/ratio.js'

/** --kube-version must be a Kubernetes version (1.33, v1.31.0-eks-abc, 1.30+); undefined is fine. */
export function checkKubeVersion(value: string | undefined): void {
  if (value === undefined) return
  try {
    parseVersion(value)
  } catch (e) {
    throw new CliError(`--kube-version: ${(e as Error).message}`, ExitCode.USAGE)
  }
}

/**
 * "zone-a=0.5,zone-b=0.3" or "zone-a=50%,zone-b=30%" -> {zone-a: 0.5, zone-b: 0.3}. The shares are
 * weights: the engines scale them to add up to 100% (0.5,0.5 and 1,1 and 50%,50% are the same).
 */
export function parseTraffic(text: string): Record<string, number> {
  const out: Record<string, number> = {}
  for (const part of text.split(',')) {
    const m = part.trim().match(/^([^=\s]+)=([0-9]*\.?[0-9]+(?:e-?\d+)?)(%?)$/)
    if (!m) throw new CliError(`--traffic: invalid entry "${part.trim()}": expected ZONE=SHARE, e.g. zone-a=0.5,zone-b=0.5 or zone-a=50%,zone-b=50%`, ExitCode.USAGE)
    const v = Number(m[2]) / (m[3] ? 100 : 1)
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
 * (as kubectl names what exists when a name does not), not a share silently ignored. And it names
 * every zone that has nodes: a zone left out would get no traffic at all, silently (issue 19,
 * finding 11), so the line asks for its share, 0 included, with a complete example.
 */
export function checkTrafficZones(traffic: Record<string, number> | undefined, state: ClusterState): void {
  if (traffic === undefined) return
  const zones = new Set<string>()
  const nodeZones = new Set<string>()
  for (const n of state.nodes) {
    const z = n.metadata.labels?.[LABEL_ZONE]
    if (z) {
      zones.add(z)
      nodeZones.add(z)
    }
  }
  for (const s of state.endpointSlices) for (const e of s.endpoints ?? []) if (e.zone) zones.add(e.zone)
  const unknown = Object.keys(traffic).filter((z) => !zones.has(z))
  const known = [...zones].sort().join(', ') || 'none'
  if (unknown.length > 0) {
    throw new CliError(`--traffic: unknown zone${unknown.length > 1 ? 's' : ''} ${unknown.map((z) => `"${z}"`).join(', ')} (zones in the cluster: ${known})`, ExitCode.USAGE)
  }
  const left = [...nodeZones].filter((z) => !(z in traffic)).sort()
  if (left.length === 0) return
  const all = [...new Set([...Object.keys(traffic), ...nodeZones])].sort()
  const example = all.map((z) => `${z}=${z in traffic ? traffic[z] : 0}`).join(',')
  throw new CliError(
    `--traffic: no share for zone${left.length > 1 ? 's' : ''} ${left.map((z) => `"${z}"`).join(', ')}: give every zone with nodes a share (0 for none), e.g. --traffic ${example}`,
    ExitCode.USAGE,
  )
}

/**
 * check and plan --max-overload: "20%" or "0.2" -> 0.2; a bare number above 1 ("20") is refused
 * with both spellings (src/state/ratio.ts), never read as 2000%.
 */
export function parseMaxOverload(text: string): number {
  const r = parseRatio(text)
  if ('value' in r) return r.value
  throw new CliError(r.misread ? `--max-overload ${text.trim()}: ${r.error}` : `--max-overload: ${r.error}`, ExitCode.USAGE)
}

/** check --min-endpoints-per-zone: a whole number. */
export function parseCount(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new CliError(`--min-endpoints-per-zone: invalid value "${text}": use a whole number such as 2`, ExitCode.USAGE)
  return Number(text.trim())
}

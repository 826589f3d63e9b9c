// Reading the facts out of DaemonSets and ConfigMaps: image versions, command-line flags,
// environment variables, embedded YAML configuration. Pure.

import {parse as parseYaml} from 'yaml'
import type {ConfigMap, Container, DaemonSet} from './types.js'

/**
 * The version in an image reference's tag, without "v" and build suffixes:
 * "registry.k8s.io/kube-proxy:v1.34.1" -> "1.34.1",
 * "quay.io/cilium/cilium:v1.18.4@sha256:..." -> "1.18.4",
 * ".../eks/kube-proxy:v1.29.0-minimal-eksbuild.1" -> "1.29.0". Untagged, "latest" or a
 * digest only -> undefined.
 */
export function imageVersion(image: string | undefined): string | undefined {
  if (!image) return undefined
  const noDigest = image.split('@')[0]!
  const lastSlash = noDigest.lastIndexOf('/')
  const colon = noDigest.indexOf(':', lastSlash + 1)
  if (colon < 0) return undefined
  const m = /^v?(\d+\.\d+(?:\.\d+)?)/.exec(noDigest.slice(colon + 1))
  return m ? m[1] : undefined
}

export interface Semver {
  major: number
  minor: number
  patch: number
}

export function parseSemver(v: string | undefined): Semver | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v ?? '')
  return m ? {major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0)} : undefined
}

/** a >= major.minor.patch */
export function versionAtLeast(a: Semver, major: number, minor: number, patch = 0): boolean {
  if (a.major !== major) return a.major > major
  if (a.minor !== minor) return a.minor > minor
  return a.patch >= patch
}

export const ref = (o: {kind?: string; metadata: {namespace?: string; name: string}}, kind: string) =>
  `${o.kind ?? kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`

/** The DaemonSet with one of these names (first match in `names` order), in one of the namespaces. */
export function findDaemonSet(all: readonly DaemonSet[], names: readonly string[], namespaces?: readonly string[]): DaemonSet | undefined {
  for (const name of names) {
    const ds = all.find((d) => d.metadata.name === name && (namespaces === undefined || namespaces.includes(d.metadata.namespace ?? '')))
    if (ds) return ds
  }
  return undefined
}

export function findConfigMap(all: readonly ConfigMap[], name: string, namespace?: string): ConfigMap | undefined {
  return all.find((c) => c.metadata.name === name && (namespace === undefined || (c.metadata.namespace ?? '') === namespace))
}

/** The container named `name`, else the first one (of a DaemonSet's or a Deployment's pod template). */
export function mainContainer(ds: Pick<DaemonSet, 'spec'>, name: string): Container | undefined {
  const cs = ds.spec?.template?.spec?.containers ?? []
  return cs.find((c) => c.name === name) ?? cs[0]
}

/** command followed by args, as the container runtime joins them. */
export function commandLine(c: Container | undefined): string[] {
  return [...(c?.command ?? []), ...(c?.args ?? [])]
}

/**
 * The value of a long flag as pflag reads it: `--name=value`, or `--name value`; a bare
 * boolean `--name` gives "true". The last occurrence wins. undefined when absent.
 */
export function flagValue(argv: readonly string[], name: string, isBool = false): string | undefined {
  let out: string | undefined
  for (let i = 0; i < argv.length; i++) {
    // A single string may carry several words (`sh -c "kube-proxy --proxy-mode=ipvs ..."`).
    const words = argv[i]!.split(/\s+/)
    for (let j = 0; j < words.length; j++) {
      const w = words[j]!
      if (w === `--${name}` || w === `-${name}`) {
        if (isBool) out = 'true'
        else out = words[j + 1] ?? (words.length === 1 ? argv[i + 1] : undefined)
      } else if (w.startsWith(`--${name}=`) || w.startsWith(`-${name}=`)) {
        out = w.slice(w.indexOf('=') + 1)
      }
    }
  }
  return out
}

/** "A=true,B=false" (component-base --feature-gates) -> {A: true, B: false}; junk entries are skipped. */
export function parseFeatureGateFlag(v: string | undefined): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const part of (v ?? '').split(',')) {
    const [k, val] = part.split('=').map((s) => s.trim())
    if (!k || val === undefined) continue
    if (/^true$/i.test(val)) out[k] = true
    else if (/^false$/i.test(val)) out[k] = false
  }
  return out
}

/** A featureGates map from YAML (values may be booleans or "true"/"false" strings). */
/** The evidence suffix naming the feature gates set (`, featureGates A=true,B=false`), or '' when none is. */
export function featureGatesText(gates: Record<string, boolean>): string {
  const set = Object.entries(gates)
  return set.length ? `, featureGates ${set.map(([k, v]) => `${k}=${v}`).join(',')}` : ''
}

export function featureGateMap(v: unknown): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return out
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === true || x === 'true') out[k] = true
    else if (x === false || x === 'false') out[k] = false
  }
  return out
}

export function envValue(c: Container | undefined, name: string): string | undefined {
  return c?.env?.find((e) => e.name === name)?.value
}

/** Parses YAML into a plain object; anything else (or a parse error) gives undefined. */
export function yamlObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined
  try {
    const v: unknown = parseYaml(text)
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** "true"/"false" (any case, also YAML booleans) -> boolean; anything else undefined. */
export function boolish(v: unknown): boolean | undefined {
  if (v === true || v === false) return v
  if (typeof v === 'string') {
    if (/^true$/i.test(v.trim())) return true
    if (/^false$/i.test(v.trim())) return false
  }
  return undefined
}

/** Cilium 1.18.0 exactly: the release without the topology safeguards (cilium/cilium#41116, fixed in 1.18.1). */
export function isCilium1180(version: string | undefined): boolean {
  return /^1\.18\.0(?!\d)/.test(version ?? '')
}

/** A DaemonSet container's image, its version tag and the parsed version (when they are set). */
export function dsVersion(ds: DaemonSet, container: string): {version?: string; semver?: Semver; image?: string} {
  const image = mainContainer(ds, container)?.image
  const version = imageVersion(image)
  const semver = parseSemver(version)
  return {...(image !== undefined ? {image} : {}), ...(version !== undefined ? {version} : {}), ...(semver !== undefined ? {semver} : {})}
}

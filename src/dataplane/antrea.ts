// Antrea's facts for data plane detection (detect.ts): its version and whether Antrea Proxy (and
// proxyAll, and the PreferSameTrafficDistribution gate) is on, from antrea-agent and antrea-config,
// and its messages. Pure. docs/dataplane.md has the rules and their sources.

import {boolish, dsVersion, featureGateMap, featureGatesText, findConfigMap, ref, versionAtLeast, yamlObject, type Semver} from './objects.js'
import type {ConfigMap, DaemonSet, Tristate} from './types.js'

export const ANTREA_NO_NODE_HINTS = 'Antrea Proxy ignores node hints (trafficDistribution PreferSameNode) unless its PreferSameTrafficDistribution feature gate is on'
export const ANTREA_NODE_FIX = 'set featureGates.PreferSameTrafficDistribution: true in antrea-agent.conf (ConfigMap antrea-config) and restart antrea-agent'

interface AntreaFacts {
  version?: string
  semver?: Semver
  proxy: boolean
  proxyAll: boolean
  settings: Record<string, string>
  evidence: string[]
  honoursZoneHints: Tristate
  preferSameGate: boolean
  /** Antrea before v2.2 only used hints for Services annotated "auto"/"Auto". */
  requiresAutoAnnotation: boolean
}

export function inspectAntrea(ds: DaemonSet, configMaps: readonly ConfigMap[]): AntreaFacts {
  const {version, semver, image} = dsVersion(ds, 'antrea-agent')
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const settings: Record<string, string> = {}
  const cm =
    findConfigMap(configMaps, 'antrea-config', ds.metadata.namespace ?? '') ??
    configMaps.find((c) => c.data?.['antrea-agent.conf'] !== undefined && (c.metadata.namespace ?? '') === (ds.metadata.namespace ?? ''))
  const conf = yamlObject(cm?.data?.['antrea-agent.conf']) ?? {}
  const gates = featureGateMap(conf.featureGates)
  const ap = (conf.antreaProxy ?? {}) as Record<string, unknown>
  // build/charts/antrea/conf/antrea-agent.conf: antreaProxy.enable (v2), featureGates.AntreaProxy (v1).
  const proxy = (boolish(ap.enable) ?? true) && (gates.AntreaProxy ?? true)
  const proxyAll = boolish(ap.proxyAll) ?? false
  settings['antreaProxy.enable'] = String(boolish(ap.enable) ?? 'true (default)')
  settings['antreaProxy.proxyAll'] = String(boolish(ap.proxyAll) ?? 'false (default)')
  for (const [k, v] of Object.entries(gates)) settings[`featureGates.${k}`] = String(v)
  if (cm)
    evidence.push(
      `${ref(cm, 'ConfigMap')} antrea-agent.conf: antreaProxy.enable=${settings['antreaProxy.enable']}, proxyAll=${settings['antreaProxy.proxyAll']}${featureGatesText(gates)}`,
    )
  else evidence.push(`ConfigMap ${ds.metadata.namespace ?? ''}/antrea-config not found: Antrea's defaults assumed`)
  // docs/feature-gates.md: TopologyAwareHints alpha v1.8 (off), beta v1.12 (on), GA v2.5 (locked);
  // PreferSameTrafficDistribution alpha v2.5 (off).
  let zone: Tristate
  let preferSame = false
  if (semver === undefined) {
    zone = gates.TopologyAwareHints ?? true
    preferSame = gates.PreferSameTrafficDistribution ?? false
  } else if (!versionAtLeast(semver, 1, 8)) {
    zone = false
  } else {
    zone = versionAtLeast(semver, 2, 5) ? true : (gates.TopologyAwareHints ?? versionAtLeast(semver, 1, 12))
    preferSame = versionAtLeast(semver, 2, 5) ? (gates.PreferSameTrafficDistribution ?? false) : false
  }
  return {
    ...(version !== undefined ? {version} : {}),
    ...(semver !== undefined ? {semver} : {}),
    proxy,
    proxyAll,
    settings,
    evidence,
    honoursZoneHints: zone,
    preferSameGate: preferSame,
    requiresAutoAnnotation: semver !== undefined && !versionAtLeast(semver, 2, 2),
  }
}

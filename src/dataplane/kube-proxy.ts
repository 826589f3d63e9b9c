// kube-proxy's facts for data plane detection (detect.ts): its mode, feature gates and version
// from the DaemonSet and its ConfigMap, and whether it honours zone and node hints. Pure.
// docs/dataplane.md has the rules and their sources.

import {commandLine, dsVersion, featureGateMap, featureGatesText, flagValue, mainContainer, parseFeatureGateFlag, ref, versionAtLeast, yamlObject, type Semver} from './objects.js'
import type {ConfigMap, DaemonSet, Tristate} from './types.js'

/** kube-proxy: mode, feature gates, version (image tag), hints. */
interface KubeProxyFacts {
  version?: string
  semver?: Semver
  mode: string
  gates: Record<string, boolean>
  settings: Record<string, string>
  evidence: string[]
  honoursZoneHints: Tristate
  honoursNodeHints: Tristate
  preferSameGate: boolean
  message?: string
  fix?: string
}

function kubeProxyConfig(ds: DaemonSet, configMaps: readonly ConfigMap[], configPath: string): {cm: ConfigMap; key: string; config: Record<string, unknown>} | undefined {
  const ns = ds.metadata.namespace ?? ''
  const base = configPath.split('/').pop() ?? ''
  // kubeadm: ConfigMap kube-proxy, key config.conf (cmd/kubeadm/app/phases/addons/proxy/manifests.go);
  // EKS add-on: kube-proxy-config, key config. Any ConfigMap of the namespace holding a
  // KubeProxyConfiguration under the --config file name counts; the named ones first.
  const candidates = [...configMaps.filter((c) => (c.metadata.namespace ?? '') === ns)].sort(
    (a, b) => Number(!['kube-proxy', 'kube-proxy-config'].includes(a.metadata.name)) - Number(!['kube-proxy', 'kube-proxy-config'].includes(b.metadata.name)),
  )
  for (const cm of candidates) {
    const keys = Object.keys(cm.data ?? {})
    const key = keys.includes(base) ? base : keys.find((k) => /kind:\s*KubeProxyConfiguration/.test(cm.data![k]!))
    if (key === undefined) continue
    const config = yamlObject(cm.data![key])
    if (config && config.kind === 'KubeProxyConfiguration') return {cm, key, config}
  }
  return undefined
}

export function inspectKubeProxy(ds: DaemonSet, configMaps: readonly ConfigMap[]): KubeProxyFacts {
  const c = mainContainer(ds, 'kube-proxy')
  const argv = commandLine(c)
  const {version, semver, image} = dsVersion(ds, 'kube-proxy')
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const settings: Record<string, string> = {}
  const configPath = flagValue(argv, 'config')
  let mode: string | undefined
  let gates: Record<string, boolean> = {}
  if (configPath !== undefined) {
    // cmd/kube-proxy/app/options.go: --proxy-mode and --feature-gates are "ignored if a config
    // file is specified by --config".
    const found = kubeProxyConfig(ds, configMaps, configPath)
    if (found) {
      mode = typeof found.config.mode === 'string' ? found.config.mode : ''
      gates = featureGateMap(found.config.featureGates)
      evidence.push(`${ref(found.cm, 'ConfigMap')} ${found.key}: KubeProxyConfiguration mode ${JSON.stringify(mode)}${featureGatesText(gates)}`)
    } else {
      evidence.push(`--config=${configPath}: no KubeProxyConfiguration found in the ConfigMaps read; mode and feature gates assumed default`)
      settings.config = `${configPath} (not read)`
    }
  } else {
    mode = flagValue(argv, 'proxy-mode') ?? ''
    gates = parseFeatureGateFlag(flagValue(argv, 'feature-gates'))
    evidence.push(
      `flags: --proxy-mode=${mode || '(unset)'}${
        Object.keys(gates).length
          ? ` --feature-gates=${Object.entries(gates)
              .map(([k, v]) => `${k}=${v}`)
              .join(',')}`
          : ''
      }`,
    )
  }
  // pkg/proxy/apis/config: "" is the platform default, iptables on Linux.
  const effectiveMode = mode === '' || mode === undefined ? 'iptables' : mode
  settings.mode = mode ? mode : 'iptables (default)'
  for (const [k, v] of Object.entries(gates)) settings[`featureGates.${k}`] = String(v)

  // Version gates (pkg/features/kube_features.go history): TopologyAwareHints alpha 1.21
  // (off), beta 1.23 (off), beta 1.24 (on), GA 1.33 (locked on); PreferSameTrafficDistribution
  // alpha 1.33 (off), beta 1.34 (on), GA 1.35 (locked on).
  let zone: Tristate
  let node: boolean
  let message: string | undefined
  let fix: string | undefined
  if (semver === undefined) {
    zone = gates.TopologyAwareHints === false ? false : true
    node = gates.PreferSameTrafficDistribution ?? true
    evidence.push('kube-proxy version not in the image tag: its rules are assumed to be those of the API server version')
  } else if (!versionAtLeast(semver, 1, 21)) {
    zone = false
    node = false
    message = `hints are set, but kube-proxy ${version} predates topology hints (1.21): every node routes to all endpoints`
    fix = 'upgrade kube-proxy to the control plane version'
  } else {
    const zoneDefault = versionAtLeast(semver, 1, 24)
    const zoneLocked = versionAtLeast(semver, 1, 33)
    zone = zoneLocked ? true : (gates.TopologyAwareHints ?? zoneDefault)
    const nodeExists = versionAtLeast(semver, 1, 33)
    const nodeLocked = versionAtLeast(semver, 1, 35)
    node = !nodeExists ? false : nodeLocked ? true : (gates.PreferSameTrafficDistribution ?? versionAtLeast(semver, 1, 34))
    if (zone === false) {
      message = `hints are set, but kube-proxy ${version} runs with the TopologyAwareHints feature gate off: every node routes to all endpoints`
      fix = 'set featureGates.TopologyAwareHints: true in the KubeProxyConfiguration (ConfigMap kube-proxy, config.conf), or upgrade kube-proxy to 1.24 or later'
    }
  }
  if (effectiveMode === 'userspace') {
    // The userspace proxier (removed in 1.26) never read hints.
    zone = false
    node = false
    message = 'hints are set, but kube-proxy runs in userspace mode, which never reads them: every node routes to all endpoints'
    fix = 'set mode: iptables (or ipvs, nftables) in the KubeProxyConfiguration'
  }
  return {
    ...(version !== undefined ? {version} : {}),
    ...(semver !== undefined ? {semver} : {}),
    mode: effectiveMode,
    gates,
    settings,
    evidence,
    honoursZoneHints: zone,
    honoursNodeHints: node,
    preferSameGate: node,
    ...(message !== undefined ? {message} : {}),
    ...(fix !== undefined ? {fix} : {}),
  }
}

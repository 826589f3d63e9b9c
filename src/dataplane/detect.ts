// Which data plane load-balances Service traffic, and whether it honours EndpointSlice hints.
// Pure: reads the DaemonSets and ConfigMaps (and, for Calico operator installs, the
// Installation and FelixConfiguration) a live read or a snapshot gives. The rules, with the
// upstream files they come from, are in docs/dataplane.md.
//
// Decision order (first match names the data plane for pod traffic):
//   1. Cilium agent DaemonSet: Cilium load-balances pod traffic to ClusterIPs itself in every
//      mode (per packet in bpf_lxc, or at connect() with socket LB), with or without kube-proxy.
//   2. Calico node DaemonSet with the eBPF data plane on: Felix's BPF proxy replaces kube-proxy.
//   3. Antrea agent DaemonSet with Antrea Proxy on: Antrea load-balances pod traffic to
//      ClusterIPs in OVS (all traffic with proxyAll).
//   4. ovn-kubernetes (ovnkube-node DaemonSet): OVN load-balances all Service traffic (ovn.ts).
//   5. kube-ovn (kube-ovn-cni DaemonSet) with kube-ovn-controller --enable-lb (its default):
//      OVN load-balances pod traffic to ClusterIPs (ovn.ts).
//   6. kube-router DaemonSet with --run-service-proxy (its default): IPVS service proxy.
//   7. kube-proxy DaemonSet.
//   8. none of these: "unknown".
// Calico without eBPF, Antrea without its proxy, kube-ovn with --enable-lb=false and kube-router
// without the service proxy leave Services to kube-proxy; they are listed in `alsoFound`.

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../upstream/api/types.js'
import {
  boolish,
  commandLine,
  envValue,
  featureGateMap,
  findConfigMap,
  findDaemonSet,
  flagValue,
  imageVersion,
  isCilium1180,
  mainContainer,
  parseFeatureGateFlag,
  parseSemver,
  ref,
  versionAtLeast,
  yamlObject,
  type Semver,
} from './objects.js'
import {inspectKubeOvn, inspectOvnKubernetes, KUBE_OVN_SEMANTICS, kubeOvnAnswer, OVN_KUBERNETES_FIX, OVN_KUBERNETES_MESSAGE, ovnKubernetesAnswer} from './ovn.js'
import {DATA_PLANE_NAMES, type ConfigMap, type DataPlane, type DataPlaneName, type DataPlaneObjects, type DaemonSet, type TrafficPath, type Tristate} from './types.js'

// ---- the --data-plane override ---------------------------------------------------------------

/**
 * `--data-plane kube-proxy|cilium|calico|antrea|kube-router|ovn-kubernetes|kube-ovn|unknown`. Throws an Error naming
 * the accepted values for anything else (the command turns it into a usage error).
 */
export function parseDataPlaneFlag(value: string): DataPlaneName {
  const v = value.trim().toLowerCase()
  const aliases: Record<string, DataPlaneName> = {
    kubeproxy: 'kube-proxy',
    kube_proxy: 'kube-proxy',
    kuberouter: 'kube-router',
    kube_router: 'kube-router',
    'ovn-k8s': 'ovn-kubernetes',
    ovn_kubernetes: 'ovn-kubernetes',
    ovnkubernetes: 'ovn-kubernetes',
    kubeovn: 'kube-ovn',
    kube_ovn: 'kube-ovn',
  }
  const name = (DATA_PLANE_NAMES as readonly string[]).includes(v) ? (v as DataPlaneName) : aliases[v]
  if (name === undefined) {
    throw new Error(`invalid data plane "${value}": expected one of ${DATA_PLANE_NAMES.join(', ')}`)
  }
  return name
}

/**
 * The answer for a data plane named with --data-plane: its rules at its current release, as
 * nothing was read. Cilium is assumed to run without service topology (its default), Calico
 * with the eBPF data plane (otherwise kube-proxy would be named), kube-ovn with --enable-lb at
 * v1.17 or later.
 */
export function dataPlaneFromFlag(name: DataPlaneName): DataPlane {
  const base = (o: Partial<DataPlane> & Pick<DataPlane, 'honoursZoneHints' | 'honoursNodeHints'>): DataPlane => ({
    name,
    settings: {},
    paths: [{traffic: 'pods', by: name, honoursZoneHints: o.honoursZoneHints}],
    alsoFound: [],
    evidence: [`--data-plane ${name}`],
    source: 'flag',
    warnings: [],
    ...o,
  })
  switch (name) {
    case 'kube-proxy':
      return base({honoursZoneHints: true, honoursNodeHints: true, selection: 'kube-proxy', preferSameGate: true})
    case 'cilium':
      return base({
        honoursZoneHints: false,
        honoursNodeHints: false,
        selection: 'all-endpoints',
        settings: {'enable-service-topology': 'false (Cilium default)'},
        message: CILIUM_NO_TOPOLOGY,
        fix: CILIUM_FIX,
      })
    case 'calico':
      return base({
        honoursZoneHints: true,
        honoursNodeHints: true,
        selection: 'calico-tar-td',
        preferSameGate: true,
        settings: {bpfEnabled: 'true (assumed)'},
        message: CALICO_TAR_TD_NOTE,
      })
    case 'antrea':
      return base({honoursZoneHints: true, honoursNodeHints: false, selection: 'kube-proxy', preferSameGate: false, message: ANTREA_NO_NODE_HINTS, fix: ANTREA_NODE_FIX})
    case 'kube-router':
      return base({honoursZoneHints: false, honoursNodeHints: false, selection: 'all-endpoints', message: KUBE_ROUTER_MESSAGE, fix: KUBE_ROUTER_FIX})
    case 'ovn-kubernetes':
      return base({honoursZoneHints: false, honoursNodeHints: false, selection: 'all-endpoints', message: OVN_KUBERNETES_MESSAGE, fix: OVN_KUBERNETES_FIX})
    case 'kube-ovn':
      return base({
        honoursZoneHints: true,
        honoursNodeHints: true,
        selection: 'kube-ovn',
        preferSameGate: true,
        settings: {'enable-lb': 'true (assumed)'},
        message: KUBE_OVN_SEMANTICS,
      })
    case 'unknown':
      return base({honoursZoneHints: 'unknown', honoursNodeHints: 'unknown'})
  }
}

// ---- messages --------------------------------------------------------------------------------

/** The DaemonSet names that identify a data plane (any of them found: a data plane is known). */
export const KNOWN_DATA_PLANE_DAEMONSETS: readonly string[] = ['kube-proxy', 'cilium', 'calico-node', 'antrea-agent', 'ovnkube-node', 'kube-ovn-cni', 'kube-router']
/** The DaemonSets detection looks for, for "no ... DaemonSet found". */
export const KNOWN_DAEMONSETS = 'kube-proxy, cilium, calico-node, antrea-agent, ovnkube-node, kube-ovn-cni or kube-router'
/** The fix of an unknown data plane. */
export const FLAG_FIX = `name it with --data-plane ${DATA_PLANE_NAMES.filter((n) => n !== 'unknown').join('|')}`

export const CILIUM_NO_TOPOLOGY = "hints are set, but Cilium's kube-proxy replacement runs without service topology: every node routes to all endpoints"
export const CILIUM_BESIDE_KUBE_PROXY =
  'hints are set and kube-proxy honours them, but Cilium load-balances pod traffic to ClusterIPs itself (at the socket or at the pod) without service topology: pods on every node reach all endpoints; only host-network clients follow the hints'
export const CILIUM_NO_TOPOLOGY_NO_KPR = 'hints are set, but Cilium load-balances ClusterIPs without service topology: every node routes to all endpoints'
export const CILIUM_FIX = 'set the Helm value loadBalancer.serviceTopology=true (cilium-config key enable-service-topology: "true") and restart the cilium agents'
export const CILIUM_SEMANTICS =
  'Cilium uses zone hints only for Services with the topology-mode (or topology-aware-hints) annotation or trafficDistribution: PreferClose; it ignores node hints'
export const CILIUM_SEMANTICS_120 =
  "Cilium uses zone hints only for Services with the topology-mode (or topology-aware-hints) annotation or trafficDistribution PreferClose/PreferSameZone; for PreferSameNode it keeps the endpoints on the client's node (by nodeName, not node hints), else all"
export const CILIUM_1180_NO_SAFEGUARDS =
  "Cilium 1.18.0 applies zone hints backend by backend without kube-proxy's safeguards: a backend without hints is kept, and a zone with no backend hinted for it gets none (fixed in 1.18.1, cilium/cilium#41116)"
export const CILIUM_1180_FIX = 'upgrade Cilium to 1.18.1 or later'
export const CALICO_TAR_TD_NOTE =
  "Calico's eBPF data plane honours zone and node hints, but not as kube-proxy does: with topology-mode Auto it keeps this zone's endpoints; otherwise it prefers endpoints hinted for this node, then for this zone, even when some endpoints carry no hint"
export const CALICO_TAR_NOTE_331 =
  "Calico's eBPF data plane v3.31 honours zone hints, but not as kube-proxy does: with topology-mode Auto it keeps this zone's endpoints; otherwise it prefers endpoints hinted for this zone even when some endpoints carry no hint; it drops node hints (upgrade to v3.32 for PreferSameNode)"
export const CALICO_ANNOTATION_NOTE =
  'Calico\'s eBPF data plane before v3.31 uses zone hints only for Services annotated topology-aware-hints (or topology-mode) "auto", endpoint by endpoint, without kube-proxy\'s safeguards; it ignores trafficDistribution and node hints'
export const CALICO_IGNORES = "hints are set, but Calico's eBPF data plane ignores them in this version: every node routes to all endpoints"
export const ANTREA_NO_NODE_HINTS = 'Antrea Proxy ignores node hints (trafficDistribution PreferSameNode) unless its PreferSameTrafficDistribution feature gate is on'
export const ANTREA_NODE_FIX = 'set featureGates.PreferSameTrafficDistribution: true in antrea-agent.conf (ConfigMap antrea-config) and restart antrea-agent'
export const KUBE_ROUTER_MESSAGE = "hints are set, but kube-router's IPVS service proxy does not read them: every node routes to all endpoints"
export const KUBE_ROUTER_FIX =
  'kube-router has no setting for hints (cloudnativelabs/kube-router#1005): run kube-router with --run-service-proxy=false and kube-proxy for Services, or use a data plane that honours hints'

// ---- per data plane ----------------------------------------------------------------------------

function dsVersion(ds: DaemonSet, container: string): {version?: string; semver?: Semver; image?: string} {
  const image = mainContainer(ds, container)?.image
  const version = imageVersion(image)
  const semver = parseSemver(version)
  return {...(image !== undefined ? {image} : {}), ...(version !== undefined ? {version} : {}), ...(semver !== undefined ? {semver} : {})}
}

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
      evidence.push(
        `${ref(found.cm, 'ConfigMap')} ${found.key}: KubeProxyConfiguration mode ${JSON.stringify(mode)}${
          Object.keys(gates).length
            ? `, featureGates ${Object.entries(gates)
                .map(([k, v]) => `${k}=${v}`)
                .join(',')}`
            : ''
        }`,
      )
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

/** "true"/"strict" -> "true"; "false"/"disabled" -> "false"; "partial"/"probe" kept (Cilium <= 1.13). */
export function normalizeKubeProxyReplacement(v: string | undefined): 'true' | 'false' | 'partial' | 'probe' | undefined {
  switch ((v ?? '').trim().toLowerCase()) {
    case 'true':
    case 'strict':
      return 'true'
    case 'false':
    case 'disabled':
      return 'false'
    case 'partial':
      return 'partial'
    case 'probe':
      return 'probe'
    default:
      return undefined
  }
}

interface CiliumFacts {
  version?: string
  settings: Record<string, string>
  evidence: string[]
  serviceTopology: boolean
  kpr: 'true' | 'false' | 'partial' | 'probe' | undefined
  socketLB: boolean | undefined
  honoursZoneHints: Tristate
  warnings: string[]
}

export function inspectCilium(ds: DaemonSet, configMaps: readonly ConfigMap[] | undefined): CiliumFacts {
  const {version, semver, image} = dsVersion(ds, 'cilium-agent')
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const warnings: string[] = []
  const cm = configMaps ? findConfigMap(configMaps, 'cilium-config', ds.metadata.namespace ?? '') : undefined
  const data = cm?.data ?? {}
  const settings: Record<string, string> = {}
  // Keys as install/kubernetes/cilium/templates/cilium-configmap.yaml writes them; the agent
  // flags of the same names are pkg/option/config.go KubeProxyReplacement, EnableServiceTopology
  // (pkg/loadbalancer/config.go UserConfig in 1.18+), and the socket-LB options.
  for (const k of ['kube-proxy-replacement', 'enable-service-topology', 'bpf-lb-sock', 'bpf-lb-sock-hostns-only', 'enable-host-reachable-services', 'cni-chaining-mode']) {
    if (data[k] !== undefined) settings[k] = data[k]!
  }
  if (cm) {
    evidence.push(
      `${ref(cm, 'ConfigMap')}: ${['kube-proxy-replacement', 'enable-service-topology', 'bpf-lb-sock', 'bpf-lb-sock-hostns-only'].map((k) => `${k}=${data[k] === undefined ? '(unset)' : JSON.stringify(data[k])}`).join(', ')}`,
    )
  } else {
    evidence.push(`ConfigMap ${ds.metadata.namespace ?? ''}/cilium-config not found: Cilium's defaults assumed (no service topology)`)
  }
  const serviceTopology = boolish(data['enable-service-topology']) ?? false
  if (settings['enable-service-topology'] === undefined) settings['enable-service-topology'] = 'false (default)'
  const kpr = normalizeKubeProxyReplacement(data['kube-proxy-replacement'])
  // The agent turns socket LB on with the kube-proxy replacement unless bpf-lb-sock says
  // otherwise (daemon/cmd/kube_proxy_replacement.go); bpf-lb-sock-hostns-only limits it to
  // the host namespace, pods then go per packet through bpf_lxc, still Cilium.
  const sock = boolish(data['bpf-lb-sock']) ?? boolish(data['enable-host-reachable-services'])
  const socketLB = sock ?? (kpr === 'true' ? true : kpr === undefined ? undefined : false)
  // Service topology arrived in Cilium 1.11 (cilium/cilium#17929).
  let zone: Tristate = serviceTopology
  if (serviceTopology && semver !== undefined && !versionAtLeast(semver, 1, 11)) zone = false
  return {
    ...(version !== undefined ? {version} : {}),
    settings,
    evidence,
    serviceTopology,
    kpr,
    socketLB,
    honoursZoneHints: zone,
    warnings,
  }
}

interface CalicoFacts {
  version?: string
  semver?: Semver
  bpf: Tristate
  settings: Record<string, string>
  evidence: string[]
}

export function inspectCalico(ds: DaemonSet, objects: DataPlaneObjects): CalicoFacts {
  const c = mainContainer(ds, 'calico-node')
  const found = dsVersion(ds, 'calico-node')
  const image = found.image
  let version = found.version
  let semver = found.semver
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const settings: Record<string, string> = {}
  // Felix reads, highest priority first: environment (FELIX_BPFENABLED), config file,
  // FelixConfiguration node.<name>, FelixConfiguration default (Calico docs, "Configuring Felix").
  // The tigera operator writes FelixConfiguration default spec.bpfEnabled from
  // Installation spec.calicoNetwork.linuxDataplane (operator: bpfEnabled annotation).
  let bpf: Tristate = 'unknown'
  const env = envValue(c, 'FELIX_BPFENABLED')
  const felix = objects.felixConfigurations?.find((f) => f.metadata.name === 'default')
  const install = objects.installations?.find((i) => i.metadata.name === 'default') ?? objects.installations?.[0]
  if (env !== undefined && boolish(env) !== undefined) {
    bpf = boolish(env)!
    settings.FELIX_BPFENABLED = env
    evidence.push(`${ref(ds, 'DaemonSet')}: env FELIX_BPFENABLED=${env}`)
  } else if (felix?.spec?.bpfEnabled !== undefined) {
    bpf = felix.spec.bpfEnabled
    settings.bpfEnabled = String(felix.spec.bpfEnabled)
    evidence.push(`FelixConfiguration default: spec.bpfEnabled=${felix.spec.bpfEnabled}`)
  } else if (install?.spec?.calicoNetwork?.linuxDataplane !== undefined) {
    const dp = install.spec.calicoNetwork.linuxDataplane
    bpf = dp === 'BPF'
    settings.linuxDataplane = dp
    evidence.push(`Installation ${install.metadata.name}: spec.calicoNetwork.linuxDataplane=${dp}`)
  } else if (objects.felixConfigurations !== undefined || objects.installations !== undefined) {
    // Read and silent: Felix's default, bpfEnabled false.
    bpf = false
    settings.bpfEnabled = 'false (default)'
  } else {
    evidence.push('FELIX_BPFENABLED not set on calico-node, and FelixConfiguration/Installation were not read: eBPF data plane unknown')
  }
  if (version === undefined && install?.status?.calicoVersion) {
    version = imageVersion(`x:${install.status.calicoVersion}`)
    semver = parseSemver(version)
  }
  return {...(version !== undefined ? {version} : {}), ...(semver !== undefined ? {semver} : {}), bpf, settings, evidence}
}

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
      `${ref(cm, 'ConfigMap')} antrea-agent.conf: antreaProxy.enable=${settings['antreaProxy.enable']}, proxyAll=${settings['antreaProxy.proxyAll']}${
        Object.keys(gates).length
          ? `, featureGates ${Object.entries(gates)
              .map(([k, v]) => `${k}=${v}`)
              .join(',')}`
          : ''
      }`,
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

// ---- the decision ------------------------------------------------------------------------------

/**
 * Names the data plane that load-balances pod traffic to ClusterIPs, and whether it honours
 * zone and node hints. See the decision order at the top of this file.
 *
 * `source` tells where the objects came from ('detected' for a live read, 'snapshot' for a file).
 * `warnings` (e.g. "cannot list daemonsets in kube-system ...") are carried into the answer;
 * with nothing found and warnings present, the answer is "unknown".
 */
export function detectDataPlane(objects: DataPlaneObjects, opts: {source?: 'detected' | 'snapshot'; warnings?: string[]} = {}): DataPlane {
  const source = opts.source ?? 'detected'
  const warnings = [...(opts.warnings ?? [])]
  const dss = objects.daemonSets
  const cms = objects.configMaps
  const kubeProxyDs = findDaemonSet(dss, ['kube-proxy'])
  const ciliumDs = findDaemonSet(dss, ['cilium'])
  const calicoDs = findDaemonSet(dss, ['calico-node'])
  const antreaDs = findDaemonSet(dss, ['antrea-agent'])
  const routerDs = findDaemonSet(dss, ['kube-router'])
  const ovnk = inspectOvnKubernetes(objects)
  const kubeOvn = inspectKubeOvn(objects)
  const kp = kubeProxyDs ? inspectKubeProxy(kubeProxyDs, cms) : undefined

  const found: DataPlaneName[] = []
  if (ciliumDs) found.push('cilium')
  if (calicoDs) found.push('calico')
  if (antreaDs) found.push('antrea')
  if (ovnk) found.push('ovn-kubernetes')
  if (kubeOvn) found.push('kube-ovn')
  if (routerDs) found.push('kube-router')
  if (kubeProxyDs) found.push('kube-proxy')
  const others = (name: DataPlaneName) => found.filter((n) => n !== name)
  const kpPath = (): TrafficPath | undefined => (kp ? {traffic: 'host', by: 'kube-proxy', honoursZoneHints: kp.honoursZoneHints} : undefined)

  const answer = (d: Omit<DataPlane, 'source' | 'warnings' | 'alsoFound'>): DataPlane => ({...d, alsoFound: others(d.name), source, warnings})

  // 1. Cilium
  if (ciliumDs) {
    const f = inspectCilium(ciliumDs, cms)
    const evidence = [...f.evidence]
    // Host-network clients and NodePorts: Cilium with the replacement or socket LB in the
    // host namespace, else kube-proxy when it runs.
    const ciliumHost = f.kpr === 'true' || f.socketLB === true || !kp
    const paths: TrafficPath[] = [
      {traffic: 'pods', by: 'cilium', honoursZoneHints: f.honoursZoneHints},
      ciliumHost ? {traffic: 'host', by: 'cilium', honoursZoneHints: f.honoursZoneHints} : kpPath()!,
    ]
    if (kp) evidence.push(...kp.evidence, 'kube-proxy runs next to Cilium: Cilium still translates ClusterIPs for pod traffic before kube-proxy sees it (cilium/cilium#23837)')
    // PreferSameNode / PreferSameZone: cilium/cilium#44771 (merged 2026-04, in v1.20.0 of
    // 2026-07-29 per its release notes),
    // by the backend's nodeName; before that only PreferClose and the annotation.
    const v = parseSemver(f.version)
    const node: Tristate = f.honoursZoneHints !== true ? false : v === undefined ? 'unknown' : versionAtLeast(v, 1, 20)
    const d: DataPlane = answer({
      name: 'cilium',
      ...(f.version !== undefined ? {version: f.version} : {}),
      settings: {
        ...f.settings,
        'kube-proxy-replacement': f.settings['kube-proxy-replacement'] ?? '(unset)',
        ...(f.socketLB !== undefined ? {'socket-lb': String(f.socketLB)} : {}),
      },
      honoursZoneHints: f.honoursZoneHints,
      honoursNodeHints: node,
      selection: f.honoursZoneHints === true ? 'cilium' : 'all-endpoints',
      paths,
      evidence,
    })
    if (f.honoursZoneHints === true) {
      d.message = node === true ? CILIUM_SEMANTICS_120 : CILIUM_SEMANTICS
      if (isCilium1180(f.version)) {
        d.message = `${d.message}; ${CILIUM_1180_NO_SAFEGUARDS}`
        d.fix = CILIUM_1180_FIX
      }
    } else {
      d.message = f.kpr === 'true' ? CILIUM_NO_TOPOLOGY : kp ? CILIUM_BESIDE_KUBE_PROXY : CILIUM_NO_TOPOLOGY_NO_KPR
      d.fix = CILIUM_FIX
      if (f.serviceTopology) {
        d.message = `hints are set, but Cilium ${f.version} predates service topology (1.11): every node routes to all endpoints`
        d.fix = 'upgrade Cilium to 1.11 or later and set loadBalancer.serviceTopology=true'
      }
    }
    d.warnings.push(...f.warnings)
    return d
  }

  // 2. Calico eBPF
  const calico = calicoDs ? inspectCalico(calicoDs, objects) : undefined
  if (calicoDs && calico && calico.bpf !== false) {
    const v = calico.semver
    let zone: Tristate = 'unknown'
    let node: Tristate = 'unknown'
    let selection: DataPlane['selection']
    let message: string | undefined
    let fix: string | undefined
    // felix/bpf/proxy/syncer.go history: v3.26.0 ShouldAppendTopologyAwareEndpoint keyed on the
    // hints annotation; v3.31.0 (k8s 1.33 bump, calico#10715) passed "" -> hints ignored;
    // v3.31.5 (#11859) and v3.32.0 (#11751, fixing #10430) FilterEpsByTopologyAwareRouting +
    // FilterEpsByTrafficDistribution.
    if (calico.bpf === 'unknown') {
      message = "Calico's data plane mode (eBPF or iptables/nftables) could not be read: if eBPF, Felix replaces kube-proxy and its own hint rules apply"
    } else if (v === undefined) {
      message =
        "Calico's version is not in the calico-node image tag: whether its eBPF data plane honours hints depends on it (v3.26-v3.30 with the annotation, v3.31.5 and later fully)"
    } else if (!versionAtLeast(v, 3, 26)) {
      zone = false
      node = false
      selection = 'all-endpoints'
      message = CALICO_IGNORES
      fix = 'upgrade Calico to v3.31.5 or later'
    } else if (!versionAtLeast(v, 3, 31)) {
      zone = true
      node = false
      selection = 'calico-annotation'
      message = CALICO_ANNOTATION_NOTE
      fix = 'upgrade Calico to v3.31.5 or later for topology-mode and trafficDistribution support'
    } else if (v.major === 3 && v.minor === 31 && v.patch < 5) {
      zone = false
      node = false
      selection = 'all-endpoints'
      message = CALICO_IGNORES
      fix = 'upgrade Calico to v3.31.5 or later'
    } else {
      zone = true
      // v3.31.x vendors kube-proxy 1.33 (PreferSameTrafficDistribution alpha, off): its
      // EndpointSlice cache drops node hints. v3.32 vendors 1.35 (gate GA): node hints kept.
      node = versionAtLeast(v, 3, 32)
      selection = 'calico-tar-td'
      message = node ? CALICO_TAR_TD_NOTE : CALICO_TAR_NOTE_331
    }
    const evidence = [...calico.evidence]
    if (kp) evidence.push(...kp.evidence, "kube-proxy runs next to Calico's eBPF data plane: Felix's BPF programs translate ClusterIPs before kube-proxy's rules")
    return answer({
      name: 'calico',
      ...(calico.version !== undefined ? {version: calico.version} : {}),
      settings: {...calico.settings, dataplane: calico.bpf === true ? 'eBPF' : 'unknown'},
      honoursZoneHints: zone,
      honoursNodeHints: node,
      ...(selection !== undefined ? {selection} : {}),
      ...(node !== 'unknown' ? {preferSameGate: node} : {}),
      paths: [
        {traffic: 'pods', by: 'calico', honoursZoneHints: zone},
        {traffic: 'host', by: 'calico', honoursZoneHints: zone},
      ],
      evidence,
      ...(message !== undefined ? {message} : {}),
      ...(fix !== undefined ? {fix} : {}),
    })
  }

  // 3. Antrea Proxy
  const antrea = antreaDs ? inspectAntrea(antreaDs, cms) : undefined
  if (antreaDs && antrea && antrea.proxy) {
    const evidence = [...antrea.evidence]
    const hostByAntrea = antrea.proxyAll || !kp
    if (kp) evidence.push(...kp.evidence)
    const d = answer({
      name: 'antrea',
      ...(antrea.version !== undefined ? {version: antrea.version} : {}),
      settings: antrea.settings,
      honoursZoneHints: antrea.honoursZoneHints,
      honoursNodeHints: antrea.preferSameGate,
      selection: antrea.honoursZoneHints === true ? 'kube-proxy' : 'all-endpoints',
      preferSameGate: antrea.preferSameGate,
      paths: [
        {traffic: 'pods', by: 'antrea', honoursZoneHints: antrea.honoursZoneHints},
        hostByAntrea ? {traffic: 'host', by: 'antrea', honoursZoneHints: antrea.honoursZoneHints} : kpPath()!,
      ],
      evidence,
    })
    if (antrea.honoursZoneHints === false) {
      d.message = `hints are set, but Antrea Proxy${antrea.version ? ` ${antrea.version}` : ''} runs with the TopologyAwareHints feature gate off: every node routes to all endpoints`
      d.fix =
        antrea.semver && !versionAtLeast(antrea.semver, 1, 8)
          ? 'upgrade Antrea to v1.12 or later'
          : 'set featureGates.TopologyAwareHints: true in antrea-agent.conf (ConfigMap antrea-config) and restart antrea-agent'
    } else if (antrea.requiresAutoAnnotation) {
      d.message = `Antrea Proxy ${antrea.version} uses zone hints only for Services annotated service.kubernetes.io/topology-aware-hints (or topology-mode) "Auto"/"auto", and ignores node hints`
      d.fix = 'upgrade Antrea to v2.2 or later for trafficDistribution support'
    } else if (!antrea.preferSameGate) {
      d.message = ANTREA_NO_NODE_HINTS
      d.fix = ANTREA_NODE_FIX
    }
    return d
  }

  // 4. ovn-kubernetes, 5. kube-ovn with its OVN load balancers (ovn.ts)
  if (ovnk) return answer(ovnKubernetesAnswer(ovnk, kp))
  if (kubeOvn?.enableLb) return answer(kubeOvnAnswer(kubeOvn, kp))

  // 6. kube-router's service proxy
  if (routerDs) {
    const argv = commandLine(mainContainer(routerDs, 'kube-router'))
    // pkg/options/options.go: --run-service-proxy defaults to true.
    const flag = flagValue(argv, 'run-service-proxy', true)
    const on = boolish(flag ?? 'true') ?? true
    if (on) {
      const {version, image} = dsVersion(routerDs, 'kube-router')
      const evidence = [`${ref(routerDs, 'DaemonSet')}: image ${image ?? '(none)'}, --run-service-proxy=${flag ?? '(unset: default true)'}`]
      if (kp) evidence.push(...kp.evidence, 'kube-proxy runs next to the kube-router service proxy: both program the same ClusterIPs (IPVS), kube-router is assumed to win')
      return answer({
        name: 'kube-router',
        ...(version !== undefined ? {version} : {}),
        settings: {'run-service-proxy': flag ?? 'true (default)'},
        honoursZoneHints: false,
        honoursNodeHints: false,
        selection: 'all-endpoints',
        paths: [
          {traffic: 'pods', by: 'kube-router', honoursZoneHints: false},
          {traffic: 'host', by: 'kube-router', honoursZoneHints: false},
        ],
        evidence,
        message: KUBE_ROUTER_MESSAGE,
        fix: KUBE_ROUTER_FIX,
      })
    }
  }

  // 7. kube-proxy
  if (kubeProxyDs && kp) {
    const evidence = [...kp.evidence]
    if (calicoDs && calico)
      evidence.push(`Calico runs without the eBPF data plane (${calico.evidence.slice(1).join('; ') || 'FELIX_BPFENABLED unset'}): Services are left to kube-proxy`)
    if (antreaDs && antrea) evidence.push('Antrea Proxy is disabled: Services are left to kube-proxy')
    if (kubeOvn) evidence.push(...kubeOvn.evidence, 'kube-ovn runs with --enable-lb=false: Services are left to kube-proxy')
    if (routerDs) evidence.push('kube-router runs with --run-service-proxy=false: Services are left to kube-proxy')
    return answer({
      name: 'kube-proxy',
      ...(kp.version !== undefined ? {version: kp.version, proxyVersion: kp.version} : {}),
      settings: kp.settings,
      honoursZoneHints: kp.honoursZoneHints,
      honoursNodeHints: kp.honoursNodeHints,
      selection: kp.honoursZoneHints === false ? 'all-endpoints' : 'kube-proxy',
      preferSameGate: kp.preferSameGate,
      paths: [
        {traffic: 'pods', by: 'kube-proxy', honoursZoneHints: kp.honoursZoneHints},
        {traffic: 'host', by: 'kube-proxy', honoursZoneHints: kp.honoursZoneHints},
      ],
      evidence,
      ...(kp.message !== undefined ? {message: kp.message} : {}),
      ...(kp.fix !== undefined ? {fix: kp.fix} : {}),
    })
  }

  // 8. unknown
  const evidence: string[] = []
  if (calicoDs && calico) evidence.push(...calico.evidence, 'Calico without the eBPF data plane leaves Services to kube-proxy, and no kube-proxy DaemonSet was found')
  if (antreaDs && antrea) evidence.push(...antrea.evidence, 'Antrea Proxy is disabled, and no kube-proxy DaemonSet was found')
  if (kubeOvn) evidence.push(...kubeOvn.evidence, 'kube-ovn runs with --enable-lb=false, and no kube-proxy DaemonSet was found')
  if (routerDs) evidence.push('kube-router runs without its service proxy, and no kube-proxy DaemonSet was found')
  if (found.length === 0) evidence.push(`no ${KNOWN_DAEMONSETS} DaemonSet found`)
  return {
    name: 'unknown',
    settings: {},
    honoursZoneHints: 'unknown',
    honoursNodeHints: 'unknown',
    paths: [],
    alsoFound: found,
    evidence,
    source,
    message:
      warnings.length > 0
        ? 'the data plane could not be read: whether nodes honour the hints is unknown'
        : 'no known data plane found (kube-proxy may run outside the cluster, e.g. as a static pod or a systemd unit): whether nodes honour the hints is unknown',
    fix: FLAG_FIX,
    warnings,
  }
}

/** For the Cilium selection rule: does Cilium treat this Service as topology-aware? */
export function ciliumTopologyAware(annotations: Record<string, string> | undefined, trafficDistribution: string | undefined, preferSameZoneAlias = false): boolean {
  // pkg/loadbalancer/reflectors (k8s.go) isTopologyAware / getAnnotationTopologyAwareHints: the
  // deprecated annotation has precedence over topology-mode; any value but "", "disabled",
  // "Disabled" counts; or spec.trafficDistribution == PreferClose.
  const a = annotations ?? {}
  const value = Object.hasOwn(a, ANNOTATION_TOPOLOGY_AWARE_HINTS) ? a[ANNOTATION_TOPOLOGY_AWARE_HINTS]! : (a[ANNOTATION_TOPOLOGY_MODE] ?? '')
  return (
    !(value === '' || value === 'disabled' || value === 'Disabled') || trafficDistribution === 'PreferClose' || (preferSameZoneAlias && trafficDistribution === 'PreferSameZone')
  )
}

// Which data plane load-balances Service traffic, and whether it honours EndpointSlice hints.
// Pure: reads the DaemonSets and ConfigMaps (and, for Calico operator installs, the
// Installation and FelixConfiguration) a live read or a snapshot gives. The rules, with the
// upstream files they come from, are in docs/dataplane.md. Each data plane's facts (read from
// its objects) and messages are in a file of its own: kube-proxy.ts, cilium.ts, calico.ts,
// antrea.ts, ovn.ts; this file holds the decision.
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

import {boolish, commandLine, dsVersion, findDaemonSet, flagValue, isCilium1180, mainContainer, parseSemver, ref, versionAtLeast} from './objects.js'
import {inspectKubeOvn, inspectOvnKubernetes, KUBE_OVN_SEMANTICS, kubeOvnAnswer, OVN_KUBERNETES_FIX, OVN_KUBERNETES_MESSAGE, ovnKubernetesAnswer} from './ovn.js'
import {inspectKubeProxy} from './kube-proxy.js'
import {
  CILIUM_1180_FIX,
  CILIUM_1180_NO_SAFEGUARDS,
  CILIUM_BESIDE_KUBE_PROXY,
  CILIUM_FIX,
  CILIUM_NO_TOPOLOGY,
  CILIUM_NO_TOPOLOGY_NO_KPR,
  CILIUM_SEMANTICS,
  CILIUM_SEMANTICS_120,
  inspectCilium,
} from './cilium.js'
import {CALICO_ANNOTATION_NOTE, CALICO_IGNORES, CALICO_TAR_NOTE_331, CALICO_TAR_TD_NOTE, inspectCalico} from './calico.js'
import {ANTREA_NO_NODE_HINTS, ANTREA_NODE_FIX, inspectAntrea} from './antrea.js'
import {DATA_PLANE_NAMES, type DataPlane, type DataPlaneName, type DataPlaneObjects, type TrafficPath, type Tristate} from './types.js'

// Each data plane's facts and messages are in a file of its own (kube-proxy.ts, cilium.ts,
// calico.ts, antrea.ts, ovn.ts); these are re-exported for the callers of detect.ts.
export {
  CILIUM_1180_FIX,
  CILIUM_BESIDE_KUBE_PROXY,
  CILIUM_FIX,
  CILIUM_NO_TOPOLOGY,
  CILIUM_SEMANTICS,
  CILIUM_SEMANTICS_120,
  CALICO_ANNOTATION_NOTE,
  CALICO_IGNORES,
  CALICO_TAR_TD_NOTE,
}
export {normalizeKubeProxyReplacement} from './cilium.js'

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

export const KUBE_ROUTER_MESSAGE = "hints are set, but kube-router's IPVS service proxy does not read them: every node routes to all endpoints"
export const KUBE_ROUTER_FIX =
  'kube-router has no setting for hints (cloudnativelabs/kube-router#1005): run kube-router with --run-service-proxy=false and kube-proxy for Services, or use a data plane that honours hints'

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

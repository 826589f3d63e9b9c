// The data plane in words, for the commands' reports: the one header line explain, check and
// watch print ("Data plane: kube-proxy 1.36.3 (iptables), detected"), which data plane to
// assume when nothing was read, and the summary their JSON carries. Pure.

import {dataPlaneFromFlag, FLAG_FIX, KNOWN_DAEMONSETS} from './detect.js'
import type {DataPlane, DataPlaneName} from './types.js'
import {proxyMinor} from './proxy-nodes.js'
import type {ProxyNodeVersion} from './proxy-nodes-types.js'

const DISPLAY: Record<DataPlaneName, string> = {
  'kube-proxy': 'kube-proxy',
  cilium: 'Cilium',
  calico: 'Calico',
  antrea: 'Antrea',
  'kube-router': 'kube-router',
  'ovn-kubernetes': 'ovn-kubernetes',
  'kube-ovn': 'kube-ovn',
  unknown: 'unknown',
}

/** Where the answer came from, as the header line says it. */
const SOURCE_WORDS: Record<DataPlane['source'], string> = {detected: 'detected', flag: 'from --data-plane', snapshot: 'from the snapshot'}

/** The snapshot (or `kubectl get -o yaml` output) carries no data-plane information. */
export const NOT_IN_SNAPSHOT = 'not recorded in the snapshot'

/**
 * The answer when nothing could be read: a snapshot without data-plane information. Its rules
 * are kube-proxy's (endpointsForNode treats "unknown" as kube-proxy), so the output is the one
 * a kube-proxy cluster gives, and the header says the data plane is unknown.
 */
export function unknownDataPlane(why: string, source: DataPlane['source'] = 'snapshot'): DataPlane {
  return {
    ...dataPlaneFromFlag('unknown'),
    source,
    evidence: [why],
    message: `the data plane is unknown (${why}): the figures assume kube-proxy's rules`,
    fix: FLAG_FIX,
  }
}

/** Cluster text (an image tag, a ConfigMap value) without terminal control characters. */
const plain = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')

/** "kube-proxy 1.36.3 (iptables)", "Cilium 1.18.4 kube-proxy replacement without service topology", "not recorded in the snapshot; ...", "unknown (...)". */
export function describeDataPlane(p: DataPlane): string {
  return plain(describe(p) + versionsSuffix(p))
}

/**
 * "; kube-proxy Pods: 1.37 on 3 nodes, 1.33 on 2 nodes" when the kube-proxy Pods show more than
 * one minor, or another one than the DaemonSet's.
 */
function versionsSuffix(p: DataPlane): string {
  if (p.proxyNodes === undefined) return ''
  const counts = new Map<string, number>()
  for (const n of p.proxyNodes) {
    const m = proxyMinor(n.version) ?? 'untagged'
    counts.set(m, (counts.get(m) ?? 0) + 1)
  }
  const own = proxyMinor(p.proxyVersion ?? p.version)
  if (counts.size === 0 || (counts.size === 1 && counts.has(own ?? ''))) return ''
  const minorKey = (m: string) => (m === 'untagged' ? -1 : Number(m.split('.')[1] ?? 0))
  const parts = [...counts].sort((a, b) => minorKey(b[0]) - minorKey(a[0])).map(([m, n]) => `${m} on ${n} node${n === 1 ? '' : 's'}`)
  return `; kube-proxy Pods: ${parts.join(', ')}`
}

function describe(p: DataPlane): string {
  const name = DISPLAY[p.name]
  // Kubernetes, Calico and Antrea tag releases "v1.36.3"; Cilium says "1.18.4".
  const v = p.version === undefined ? '' : p.name === 'cilium' || /^v/.test(p.version) ? ` ${p.version}` : ` v${p.version}`
  const s = p.settings
  switch (p.name) {
    case 'kube-proxy': {
      const mode = (s.mode ?? '').replace(/ \(default\)$/, '')
      const gateOff = p.honoursZoneHints === false ? ', TopologyAwareHints off' : ''
      return `${name}${v}${mode ? ` (${mode}${gateOff})` : gateOff ? ` (${gateOff.slice(2)})` : ''}`
    }
    case 'cilium': {
      const kpr = s['kube-proxy-replacement']
      const how = kpr === 'true' || kpr === 'strict' ? 'kube-proxy replacement' : s['socket-lb'] === 'true' ? 'socket LB next to kube-proxy' : 'next to kube-proxy'
      const topo = p.honoursZoneHints === true ? 'with service topology' : 'without service topology'
      return `${name}${v} ${p.source === 'flag' ? '' : `${how} `}${topo}`
    }
    case 'calico':
      return `${name}${v} eBPF`
    case 'antrea':
      return `${name}${v} (Antrea Proxy${s['antreaProxy.proxyAll'] === 'true' ? ', proxyAll' : ''})`
    case 'kube-router':
      return `${name}${v} (IPVS service proxy)`
    case 'ovn-kubernetes':
      return `${name}${v} (OVN load balancers)`
    case 'kube-ovn':
      return `${name}${v} (OVN load balancers${p.paths.some((x) => x.traffic === 'host' && x.by === 'kube-proxy') ? ', kube-proxy for host traffic' : ''})`
    case 'unknown': {
      const why =
        p.warnings.length > 0
          ? "the data plane's configuration could not be read"
          : p.evidence[0] === '--data-plane unknown'
            ? 'named with --data-plane'
            : `no ${KNOWN_DAEMONSETS} DaemonSet found`
      // Said plainly, once (issue 19 finding 11): not "unknown (not detected: not recorded ...), from the snapshot".
      if (p.evidence[0] === NOT_IN_SNAPSHOT) return `${NOT_IN_SNAPSHOT}; kube-proxy's rules assumed`
      return `unknown (${why}); kube-proxy's rules assumed`
    }
  }
}

/**
 * The header line: "Data plane: Cilium 1.18.4 kube-proxy replacement without service topology,
 * detected". An unknown one says why in its description, without a source that would contradict
 * it ("Data plane: not recorded in the snapshot; kube-proxy's rules assumed").
 */
export function dataPlaneLine(p: Pick<DataPlaneReport, 'name' | 'description' | 'source'>): string {
  return p.name === 'unknown' ? `Data plane: ${p.description}` : `Data plane: ${p.description}, ${SOURCE_WORDS[p.source]}`
}

/**
 * The data plane as the commands' JSON reports it: the DataPlane with its header text
 * (`description`). Fields are always present (null when not known).
 */
export interface DataPlaneReport {
  name: DataPlaneName
  version: string | null
  description: string
  honoursZoneHints: DataPlane['honoursZoneHints']
  honoursNodeHints: DataPlane['honoursNodeHints']
  selection: NonNullable<DataPlane['selection']> | null
  proxyVersion: string | null
  /** Each node's kube-proxy version from its Pod (src/dataplane/proxy-nodes.ts); null when the Pods were not read. */
  proxyNodes: ProxyNodeVersion[] | null
  source: DataPlane['source']
  message: string | null
  fix: string | null
  settings: Record<string, string>
  paths: DataPlane['paths']
  alsoFound: DataPlaneName[]
  evidence: string[]
  warnings: string[]
}

export function dataPlaneReport(p: DataPlane): DataPlaneReport {
  return {
    name: p.name,
    version: p.version ?? null,
    description: describeDataPlane(p),
    honoursZoneHints: p.honoursZoneHints,
    honoursNodeHints: p.honoursNodeHints,
    selection: p.selection ?? null,
    proxyVersion: p.proxyVersion ?? null,
    proxyNodes: p.proxyNodes ?? null,
    source: p.source,
    message: p.message ?? null,
    fix: p.fix ?? null,
    settings: p.settings,
    paths: p.paths,
    alsoFound: p.alsoFound,
    evidence: p.evidence,
    warnings: p.warnings,
  }
}

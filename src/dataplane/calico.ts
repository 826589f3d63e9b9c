// Calico's facts for data plane detection (detect.ts): its version and whether the eBPF data
// plane is on, from the calico-node DaemonSet, the Installation and the FelixConfiguration, and
// its messages. Pure. docs/dataplane.md has the rules and their sources.

import {boolish, dsVersion, envValue, imageVersion, mainContainer, parseSemver, ref, type Semver} from './objects.js'
import type {DataPlaneObjects, DaemonSet, Tristate} from './types.js'

export const CALICO_TAR_TD_NOTE =
  "Calico's eBPF data plane honours zone and node hints, but not as kube-proxy does: with topology-mode Auto it keeps this zone's endpoints; otherwise it prefers endpoints hinted for this node, then for this zone, even when some endpoints carry no hint"
export const CALICO_TAR_NOTE_331 =
  "Calico's eBPF data plane v3.31 honours zone hints, but not as kube-proxy does: with topology-mode Auto it keeps this zone's endpoints; otherwise it prefers endpoints hinted for this zone even when some endpoints carry no hint; it drops node hints (upgrade to v3.32 for PreferSameNode)"
export const CALICO_ANNOTATION_NOTE =
  'Calico\'s eBPF data plane before v3.31 uses zone hints only for Services annotated topology-aware-hints (or topology-mode) "auto", endpoint by endpoint, without kube-proxy\'s safeguards; it ignores trafficDistribution and node hints'
export const CALICO_IGNORES = "hints are set, but Calico's eBPF data plane ignores them in this version: every node routes to all endpoints"

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

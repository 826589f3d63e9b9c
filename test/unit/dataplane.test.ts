// detectDataPlane over the published manifests in test/unit/data/dataplane/ (each file names
// its origin), the decision order when several data planes run, the version and setting rules
// (docs/dataplane.md), and the --data-plane flag.
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {
  CILIUM_BESIDE_KUBE_PROXY,
  CILIUM_FIX,
  CILIUM_NO_TOPOLOGY,
  CILIUM_SEMANTICS,
  CALICO_IGNORES,
  CALICO_TAR_TD_NOTE,
  KUBE_ROUTER_MESSAGE,
  dataPlaneFromFlag,
  detectDataPlane,
  normalizeKubeProxyReplacement,
  parseDataPlaneFlag,
} from '../../src/dataplane/detect.js'
import {flagValue, imageVersion, parseFeatureGateFlag} from '../../src/dataplane/objects.js'
import type {CalicoInstallation, ConfigMap, DaemonSet, DataPlaneObjects, Deployment, FelixConfiguration} from '../../src/dataplane/types.js'

const DIR = path.join(import.meta.dirname, 'data', 'dataplane')

function load(...files: string[]): DataPlaneObjects {
  const out: Required<DataPlaneObjects> = {daemonSets: [], configMaps: [], installations: [], felixConfigurations: [], deployments: []}
  for (const f of files) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(DIR, f), 'utf8'))) {
      const o = doc.toJS() as {kind?: string} | null
      if (!o) continue
      if (o.kind === 'DaemonSet') out.daemonSets.push(o as DaemonSet)
      else if (o.kind === 'ConfigMap') out.configMaps.push(o as ConfigMap)
      else if (o.kind === 'Installation') out.installations.push(o as CalicoInstallation)
      else if (o.kind === 'FelixConfiguration') out.felixConfigurations.push(o as FelixConfiguration)
      else if (o.kind === 'Deployment') out.deployments.push(o as Deployment)
    }
  }
  return out
}

/** Only DaemonSets and ConfigMaps (what a reader without Calico CRD access gets). */
function loadCore(...files: string[]): DataPlaneObjects {
  const {daemonSets, configMaps} = load(...files)
  return {daemonSets, configMaps}
}

describe('fixtures', () => {
  it('every fixture names its origin in a header comment and parses', () => {
    const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.yaml'))
    expect(files.length).toBeGreaterThanOrEqual(12)
    for (const f of files) {
      const text = fs.readFileSync(path.join(DIR, f), 'utf8')
      expect(text.startsWith('# Origin: '), f).toBe(true)
      const objects = load(f)
      expect(objects.daemonSets.length, f).toBeGreaterThan(0)
    }
  })
})

describe('kube-proxy', () => {
  it('kubeadm 1.34: iptables (mode ""), zone and node hints honoured, version from the image', () => {
    const d = detectDataPlane(load('kube-proxy-kubeadm-1.34.yaml'))
    expect(d).toMatchObject({
      name: 'kube-proxy',
      version: '1.34.1',
      proxyVersion: '1.34.1',
      honoursZoneHints: true,
      honoursNodeHints: true,
      preferSameGate: true,
      selection: 'kube-proxy',
      source: 'detected',
      alsoFound: [],
      warnings: [],
    })
    expect(d.settings.mode).toBe('iptables (default)')
    expect(d.message).toBeUndefined()
    expect(d.evidence[0]).toBe('DaemonSet kube-system/kube-proxy: image registry.k8s.io/kube-proxy:v1.34.1')
    expect(d.evidence[1]).toContain('ConfigMap kube-system/kube-proxy config.conf: KubeProxyConfiguration mode ""')
  })

  it('kubeadm 1.23 with ipvs: TopologyAwareHints beta off by default, so hints are ignored', () => {
    const d = detectDataPlane(load('kube-proxy-kubeadm-1.23-ipvs.yaml'))
    expect(d).toMatchObject({name: 'kube-proxy', version: '1.23.17', honoursZoneHints: false, honoursNodeHints: false, selection: 'all-endpoints'})
    expect(d.settings.mode).toBe('ipvs')
    expect(d.message).toBe('hints are set, but kube-proxy 1.23.17 runs with the TopologyAwareHints feature gate off: every node routes to all endpoints')
    expect(d.fix).toContain('featureGates.TopologyAwareHints: true')
  })

  it('the config file gate turns hints on for 1.23, and is ignored once the gate is locked (1.33+)', () => {
    const o = load('kube-proxy-kubeadm-1.23-ipvs.yaml')
    o.configMaps[0]!.data!['config.conf'] += '\nfeatureGates:\n  TopologyAwareHints: true\n'
    expect(detectDataPlane(o)).toMatchObject({honoursZoneHints: true, settings: {'featureGates.TopologyAwareHints': 'true'}})
    const n = load('kube-proxy-kubeadm-1.34.yaml')
    n.configMaps[0]!.data!['config.conf'] += '\nfeatureGates:\n  TopologyAwareHints: false\n  PreferSameTrafficDistribution: false\n'
    // 1.34: TopologyAwareHints GA (locked on); PreferSameTrafficDistribution beta, may be turned off.
    expect(detectDataPlane(n)).toMatchObject({honoursZoneHints: true, honoursNodeHints: false, preferSameGate: false})
  })

  it('flags are read when there is no --config; with --config they are ignored (cmd/kube-proxy/app/options.go)', () => {
    const ds = (args: string[]): DaemonSet => ({
      kind: 'DaemonSet',
      metadata: {name: 'kube-proxy', namespace: 'kube-system'},
      spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.23.4', command: ['kube-proxy', ...args]}]}}},
    })
    const flags = detectDataPlane({daemonSets: [ds(['--proxy-mode=ipvs', '--feature-gates=TopologyAwareHints=true,Foo=false'])], configMaps: []})
    expect(flags).toMatchObject({honoursZoneHints: true, settings: {mode: 'ipvs', 'featureGates.TopologyAwareHints': 'true', 'featureGates.Foo': 'false'}})
    const withConfig = detectDataPlane({
      daemonSets: [ds(['--config=/var/lib/kube-proxy/config.conf', '--feature-gates=TopologyAwareHints=true'])],
      configMaps: load('kube-proxy-kubeadm-1.23-ipvs.yaml').configMaps,
    })
    expect(withConfig).toMatchObject({honoursZoneHints: false, settings: {mode: 'ipvs'}})
  })

  it('versions: before 1.21 no hints; 1.33 node hints alpha off; untagged image follows the server', () => {
    const at = (image: string) =>
      detectDataPlane({
        daemonSets: [{metadata: {name: 'kube-proxy', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image, command: ['kube-proxy']}]}}}}],
        configMaps: [],
      })
    expect(at('k8s.gcr.io/kube-proxy:v1.20.15')).toMatchObject({honoursZoneHints: false, honoursNodeHints: false})
    expect(at('k8s.gcr.io/kube-proxy:v1.20.15').message).toContain('predates topology hints')
    expect(at('registry.k8s.io/kube-proxy:v1.33.2')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false})
    expect(at('602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy:v1.29.0-minimal-eksbuild.1')).toMatchObject({version: '1.29.0', honoursZoneHints: true})
    const untagged = at('registry.example/kube-proxy')
    expect(untagged).toMatchObject({honoursZoneHints: true})
    expect(untagged.version).toBeUndefined()
    expect(untagged.evidence.join('\n')).toContain('assumed to be those of the API server version')
  })
})

describe('Cilium', () => {
  it('kube-proxy replacement without service topology: hints ignored, with the Helm fix', () => {
    const d = detectDataPlane(load('cilium-kpr-v1.18.4.yaml'))
    expect(d).toMatchObject({
      name: 'cilium',
      version: '1.18.4',
      honoursZoneHints: false,
      honoursNodeHints: false,
      selection: 'all-endpoints',
      message: CILIUM_NO_TOPOLOGY,
      fix: CILIUM_FIX,
      settings: {'kube-proxy-replacement': 'true', 'enable-service-topology': 'false', 'socket-lb': 'true'},
      paths: [
        {traffic: 'pods', by: 'cilium', honoursZoneHints: false},
        {traffic: 'host', by: 'cilium', honoursZoneHints: false},
      ],
    })
    expect(d.fix).toBe('set the Helm value loadBalancer.serviceTopology=true (cilium-config key enable-service-topology: "true") and restart the cilium agents')
  })

  it('service topology on: zone hints honoured (Cilium semantics), node hints not', () => {
    const d = detectDataPlane(load('cilium-kpr-topology-v1.18.4.yaml'))
    expect(d).toMatchObject({name: 'cilium', honoursZoneHints: true, honoursNodeHints: false, selection: 'cilium', message: CILIUM_SEMANTICS})
    expect(d.fix).toBeUndefined()
  })

  it('next to kube-proxy with socket LB: Cilium takes pod traffic, kube-proxy is also found', () => {
    const d = detectDataPlane(load('cilium-socketlb-v1.16.5.yaml', 'kube-proxy-kubeadm-1.34.yaml'))
    expect(d).toMatchObject({
      name: 'cilium',
      version: '1.16.5',
      honoursZoneHints: false,
      alsoFound: ['kube-proxy'],
      message: CILIUM_BESIDE_KUBE_PROXY,
      paths: [
        {traffic: 'pods', by: 'cilium', honoursZoneHints: false},
        {traffic: 'host', by: 'cilium', honoursZoneHints: false},
      ],
    })
    expect(d.evidence.join('\n')).toContain('cilium/cilium#23837')
  })

  it('next to kube-proxy without socket LB: host-network clients go through kube-proxy, which honours hints', () => {
    const o = load('cilium-socketlb-v1.16.5.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    delete o.configMaps.find((c) => c.metadata.name === 'cilium-config')!.data!['bpf-lb-sock']
    const d = detectDataPlane(o)
    expect(d.paths).toEqual([
      {traffic: 'pods', by: 'cilium', honoursZoneHints: false},
      {traffic: 'host', by: 'kube-proxy', honoursZoneHints: true},
    ])
    expect(d.message).toBe(CILIUM_BESIDE_KUBE_PROXY)
  })

  it('without its ConfigMap (unreadable): Cilium defaults, no service topology', () => {
    const o = load('cilium-kpr-topology-v1.18.4.yaml')
    const d = detectDataPlane({daemonSets: o.daemonSets, configMaps: []})
    expect(d).toMatchObject({name: 'cilium', honoursZoneHints: false})
    expect(d.evidence.join('\n')).toContain('cilium-config not found')
  })

  it('kube-proxy-replacement values of every release line', () => {
    expect(['true', 'strict', 'false', 'disabled', 'partial', 'probe', '', 'bogus'].map(normalizeKubeProxyReplacement)).toEqual([
      'true',
      'true',
      'false',
      'false',
      'partial',
      'probe',
      undefined,
      undefined,
    ])
  })
})

describe('Calico', () => {
  it('calico-bpf.yaml v3.32.1: eBPF, zone and node hints with Calico semantics', () => {
    const d = detectDataPlane(load('calico-bpf-v3.32.1.yaml'))
    expect(d).toMatchObject({
      name: 'calico',
      version: '3.32.1',
      honoursZoneHints: true,
      honoursNodeHints: true,
      preferSameGate: true,
      selection: 'calico-tar-td',
      message: CALICO_TAR_TD_NOTE,
      settings: {FELIX_BPFENABLED: 'true', dataplane: 'eBPF'},
    })
  })

  it('calico-bpf.yaml v3.31.0: eBPF, hints ignored (regression fixed in v3.31.5)', () => {
    const d = detectDataPlane(load('calico-bpf-v3.31.0.yaml'))
    expect(d).toMatchObject({name: 'calico', honoursZoneHints: false, honoursNodeHints: false, selection: 'all-endpoints', message: CALICO_IGNORES})
    expect(d.fix).toBe('upgrade Calico to v3.31.5 or later')
  })

  it('versions: v3.25 none, v3.30 annotation-only, v3.31.5 zone only, unknown version', () => {
    const at = (tag: string) => {
      const o = load('calico-bpf-v3.32.1.yaml')
      o.daemonSets[0]!.spec!.template!.spec!.containers![0]!.image = `quay.io/calico/node${tag}`
      return detectDataPlane(o)
    }
    expect(at(':v3.25.2')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
    expect(at(':v3.30.3')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false, selection: 'calico-annotation'})
    expect(at(':v3.31.5')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false, preferSameGate: false, selection: 'calico-tar-td'})
    expect(at('')).toMatchObject({honoursZoneHints: 'unknown', honoursNodeHints: 'unknown'})
    expect(at('').selection).toBeUndefined()
  })

  it('calico.yaml (iptables) next to kube-proxy: kube-proxy handles Services, Calico is also found', () => {
    const d = detectDataPlane(load('calico-iptables-v3.32.1.yaml', 'kube-proxy-kubeadm-1.34.yaml'), {source: 'snapshot'})
    expect(d).toMatchObject({name: 'kube-proxy', honoursZoneHints: true, alsoFound: ['calico'], source: 'snapshot'})
    expect(d.evidence.at(-1)).toContain('Services are left to kube-proxy')
  })

  it('operator install: Installation linuxDataplane BPF; without the CRDs read, unknown', () => {
    expect(detectDataPlane(load('calico-operator-bpf-v3.32.1.yaml'))).toMatchObject({
      name: 'calico',
      honoursZoneHints: true,
      settings: {linuxDataplane: 'BPF'},
    })
    const blind = detectDataPlane(loadCore('calico-operator-bpf-v3.32.1.yaml'))
    expect(blind).toMatchObject({name: 'calico', honoursZoneHints: 'unknown', settings: {dataplane: 'unknown'}})
    const felixOff = detectDataPlane({
      ...loadCore('calico-operator-bpf-v3.32.1.yaml', 'kube-proxy-kubeadm-1.34.yaml'),
      felixConfigurations: [{metadata: {name: 'default'}, spec: {bpfEnabled: false}}],
      installations: [],
    })
    expect(felixOff).toMatchObject({name: 'kube-proxy', alsoFound: ['calico']})
  })
})

describe('Antrea', () => {
  it('antrea.yml v2.5.3: Antrea Proxy for pods, kube-proxy for hosts; zone hints yes, node hints gate off', () => {
    const d = detectDataPlane(load('antrea-v2.5.3.yaml', 'kube-proxy-kubeadm-1.34.yaml'))
    expect(d).toMatchObject({
      name: 'antrea',
      version: '2.5.3',
      honoursZoneHints: true,
      honoursNodeHints: false,
      preferSameGate: false,
      selection: 'kube-proxy',
      alsoFound: ['kube-proxy'],
      settings: {'antreaProxy.enable': 'true', 'antreaProxy.proxyAll': 'false'},
      paths: [
        {traffic: 'pods', by: 'antrea', honoursZoneHints: true},
        {traffic: 'host', by: 'kube-proxy', honoursZoneHints: true},
      ],
    })
    expect(d.message).toContain('PreferSameTrafficDistribution')
  })

  it('the PreferSameTrafficDistribution gate turns node hints on; proxyAll takes host traffic', () => {
    const o = load('antrea-v2.5.3.yaml')
    const cm = o.configMaps[0]!
    cm.data!['antrea-agent.conf'] = cm
      .data!['antrea-agent.conf']!.replace('#  PreferSameTrafficDistribution: false', '  PreferSameTrafficDistribution: true')
      .replace('proxyAll: false', 'proxyAll: true')
    const d = detectDataPlane(o)
    expect(d).toMatchObject({honoursNodeHints: true, preferSameGate: true, paths: [{by: 'antrea'}, {traffic: 'host', by: 'antrea'}]})
    expect(d.message).toBeUndefined()
  })

  it('Antrea Proxy disabled: kube-proxy handles Services', () => {
    const o = load('antrea-v2.5.3.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    const cm = o.configMaps.find((c) => c.metadata.name === 'antrea-config')!
    cm.data!['antrea-agent.conf'] = cm.data!['antrea-agent.conf']!.replace('enable: true', 'enable: false')
    expect(detectDataPlane(o)).toMatchObject({name: 'kube-proxy', alsoFound: ['antrea']})
  })

  it('versions: v1.11 gate alpha off, v1.12 on, v2.1 annotation "Auto" only', () => {
    const at = (tag: string) => {
      const o = load('antrea-v2.5.3.yaml')
      o.daemonSets[0]!.spec!.template!.spec!.containers![0]!.image = `antrea/antrea-ubuntu:${tag}`
      return detectDataPlane(o)
    }
    expect(at('v1.11.0')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
    expect(at('v1.12.0')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false})
    expect(at('v2.1.0').message).toContain('"Auto"/"auto"')
  })
})

describe('kube-router', () => {
  it('service proxy on (untagged image as published): hints ignored', () => {
    const d = detectDataPlane(load('kube-router-all-features.yaml'))
    expect(d).toMatchObject({
      name: 'kube-router',
      honoursZoneHints: false,
      honoursNodeHints: false,
      selection: 'all-endpoints',
      message: KUBE_ROUTER_MESSAGE,
      settings: {'run-service-proxy': 'true'},
    })
    expect(d.version).toBeUndefined()
    expect(d.fix).toContain('cloudnativelabs/kube-router#1005')
  })

  it('--run-service-proxy defaults to true when absent', () => {
    const o = load('kube-router-all-features.yaml')
    o.daemonSets[0]!.spec!.template!.spec!.containers![0]!.args = ['--run-router=true']
    expect(detectDataPlane(o)).toMatchObject({name: 'kube-router', settings: {'run-service-proxy': 'true (default)'}})
  })

  it('service proxy off next to kube-proxy: kube-proxy', () => {
    const d = detectDataPlane(load('kube-router-proxy-off-with-kube-proxy.yaml'))
    expect(d).toMatchObject({name: 'kube-proxy', alsoFound: ['kube-router'], honoursZoneHints: true})
    expect(d.evidence.join('\n')).toContain('no KubeProxyConfiguration found')
  })
})

describe('decision order and unknown', () => {
  it('Cilium wins over everything; Calico eBPF over Antrea and kube-proxy', () => {
    const all = detectDataPlane(load('cilium-kpr-v1.18.4.yaml', 'calico-bpf-v3.32.1.yaml', 'antrea-v2.5.3.yaml', 'kube-router-all-features.yaml', 'kube-proxy-kubeadm-1.34.yaml'))
    expect(all.name).toBe('cilium')
    expect(all.alsoFound).toEqual(['calico', 'antrea', 'kube-router', 'kube-proxy'])
    expect(detectDataPlane(load('calico-bpf-v3.32.1.yaml', 'antrea-v2.5.3.yaml', 'kube-proxy-kubeadm-1.34.yaml')).name).toBe('calico')
    expect(detectDataPlane(load('antrea-v2.5.3.yaml', 'kube-router-all-features.yaml')).name).toBe('antrea')
  })

  it('nothing found: unknown, with the --data-plane hint; RBAC warnings carried', () => {
    const none = detectDataPlane({daemonSets: [], configMaps: []})
    expect(none).toMatchObject({name: 'unknown', honoursZoneHints: 'unknown', honoursNodeHints: 'unknown', alsoFound: [], paths: []})
    expect(none.message).toContain('static pod')
    expect(none.fix).toContain('--data-plane')
    const w = 'cannot list daemonsets in namespace "kube-system" (missing permission: list daemonsets.apps in kube-system); the data plane is unknown'
    const denied = detectDataPlane({daemonSets: [], configMaps: []}, {warnings: [w]})
    expect(denied.warnings).toEqual([w])
    expect(denied.message).toBe('the data plane could not be read: whether nodes honour the hints is unknown')
  })

  it('Calico iptables alone: unknown (no kube-proxy DaemonSet to name)', () => {
    const d = detectDataPlane(load('calico-iptables-v3.32.1.yaml'))
    expect(d).toMatchObject({name: 'unknown', alsoFound: ['calico']})
  })
})

describe('--data-plane', () => {
  it('accepts the eight names (any case, kubeproxy alias) and refuses others', () => {
    for (const n of ['kube-proxy', 'cilium', 'calico', 'antrea', 'kube-router', 'unknown'] as const) expect(parseDataPlaneFlag(n)).toBe(n)
    expect(parseDataPlaneFlag(' Cilium ')).toBe('cilium')
    expect(parseDataPlaneFlag('kubeproxy')).toBe('kube-proxy')
    expect(() => parseDataPlaneFlag('flannel')).toThrow(
      'invalid data plane "flannel": expected one of kube-proxy, cilium, calico, antrea, kube-router, ovn-kubernetes, kube-ovn, unknown',
    )
  })

  it('gives each plane its current defaults, source flag', () => {
    expect(dataPlaneFromFlag('cilium')).toMatchObject({name: 'cilium', source: 'flag', honoursZoneHints: false, fix: CILIUM_FIX})
    expect(dataPlaneFromFlag('kube-proxy')).toMatchObject({honoursZoneHints: true, honoursNodeHints: true, selection: 'kube-proxy'})
    expect(dataPlaneFromFlag('kube-router')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
    expect(dataPlaneFromFlag('unknown')).toMatchObject({honoursZoneHints: 'unknown'})
    expect(dataPlaneFromFlag('calico').evidence).toEqual(['--data-plane calico'])
  })
})

describe('helpers', () => {
  it('imageVersion', () => {
    expect(imageVersion('registry.k8s.io/kube-proxy:v1.34.1')).toBe('1.34.1')
    expect(imageVersion('quay.io/cilium/cilium:v1.18.4@sha256:abcd')).toBe('1.18.4')
    expect(imageVersion('localhost:5000/kube-proxy')).toBeUndefined()
    expect(imageVersion('localhost:5000/calico/node:v3.30.3')).toBe('3.30.3')
    expect(imageVersion('antrea/antrea-agent-ubuntu:latest')).toBeUndefined()
    expect(imageVersion('x@sha256:abcd')).toBeUndefined()
  })

  it('flagValue reads --a=b, --a b, words in one string, and the last occurrence', () => {
    expect(flagValue(['kube-proxy', '--proxy-mode', 'ipvs'], 'proxy-mode')).toBe('ipvs')
    expect(flagValue(['sh', '-c', 'kube-proxy --proxy-mode ipvs --v=2'], 'proxy-mode')).toBe('ipvs')
    expect(flagValue(['--proxy-mode=iptables', '--proxy-mode=nftables'], 'proxy-mode')).toBe('nftables')
    expect(flagValue(['--run-service-proxy'], 'run-service-proxy', true)).toBe('true')
    expect(flagValue(['--x=1'], 'proxy-mode')).toBeUndefined()
  })

  it('parseFeatureGateFlag', () => {
    expect(parseFeatureGateFlag('A=true, B=False,C,D=maybe')).toEqual({A: true, B: false})
  })
})

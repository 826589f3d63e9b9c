// The synthetic cluster of bench/explain.mjs and bench/size.mjs (a `kubectl get
// nodes,services,endpointslices -A -o json` v1 List): 5,000 Ready nodes in 6 zones, one Service
// bench/big with 50,000 ready endpoints in 50 slices, 2,000 small Services over 20 namespaces
// (of SMALL_ENDPOINTS endpoints each, or `smallEndpoints`). Seeded: the same objects every run;
// the nodes and svc/big do not depend on `smallEndpoints` (their random draws come first).
export const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d', 'zone-e', 'zone-f']
export const NODES = 5000
export const BIG_ENDPOINTS = 50_000
export const BIG_SLICES = 50
export const SMALL_SERVICES = 2000
export const SMALL_ENDPOINTS = 10
const NAMESPACES = 20

// ---- synthetic snapshot ----------------------------------------------------------------

function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The v1 List; smallEndpoints: the endpoints of each small Service (bench/size.mjs makes its YAML
 * file bigger); nodes, smallServices, bigEndpoints: a smaller cluster (bench/advise.mjs; 0
 * bigEndpoints: no svc/big). The defaults give the same file as before these options.
 */
export function generate({smallEndpoints = SMALL_ENDPOINTS, nodes: nodeCount = NODES, smallServices = SMALL_SERVICES, bigEndpoints = BIG_ENDPOINTS} = {}) {
  const rand = mulberry32(2)
  const pick = (xs) => xs[Math.floor(rand() * xs.length)]
  const cpus = ['2', '4', '8', '16', '3500m']
  const nodes = []
  for (let i = 0; i < nodeCount; i++) {
    const name = `node-${String(i + 1).padStart(4, '0')}`
    const zone = ZONES[i % ZONES.length]
    const cpu = pick(cpus)
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {name, labels: {'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, 'kubernetes.io/os': 'linux'}},
      status: {
        allocatable: {cpu, memory: '16Gi', pods: '110'},
        capacity: {cpu, memory: '16Gi', pods: '110'},
        conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady'}],
      },
    })
  }
  let ip = 0
  const nextIp = () => {
    ip++
    return `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`
  }
  const endpoint = (svc) => {
    const n = nodes[Math.floor(rand() * nodes.length)]
    const zone = n.metadata.labels['topology.kubernetes.io/zone']
    return {
      addresses: [nextIp()],
      conditions: {ready: true, serving: true, terminating: false},
      nodeName: n.metadata.name,
      zone,
      hints: {forZones: [{name: zone}]},
      targetRef: {kind: 'Pod', name: `${svc}-${ip}`, namespace: 'bench'},
    }
  }
  const service = (namespace, name, {annotations, trafficDistribution} = {}) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {name, namespace, ...(annotations ? {annotations} : {})},
    spec: {
      type: 'ClusterIP',
      selector: {app: name},
      ports: [{name: 'http', port: 80, protocol: 'TCP', targetPort: 8080}],
      ipFamilies: ['IPv4'],
      internalTrafficPolicy: 'Cluster',
      ...(trafficDistribution ? {trafficDistribution} : {}),
    },
  })
  const slice = (namespace, svc, name, endpoints) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace,
      labels: {'kubernetes.io/service-name': svc, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
    },
    addressType: 'IPv4',
    ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    endpoints,
  })

  const services = bigEndpoints > 0 ? [service('bench', 'big', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})] : []
  const slices = []
  const perSlice = Math.ceil(bigEndpoints / BIG_SLICES)
  for (let s = 0; s < (bigEndpoints > 0 ? BIG_SLICES : 0); s++) {
    slices.push(
      slice(
        'bench',
        'big',
        `big-${String(s).padStart(5, '0')}`,
        Array.from({length: perSlice}, () => endpoint('big')),
      ),
    )
  }
  for (let i = 0; i < smallServices; i++) {
    const ns = `ns-${String(i % NAMESPACES).padStart(2, '0')}`
    const name = `svc-${String(i).padStart(4, '0')}`
    const kind = i % 3
    services.push(service(ns, name, kind === 0 ? {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}} : kind === 1 ? {trafficDistribution: 'PreferSameZone'} : {}))
    slices.push(
      slice(
        ns,
        name,
        `${name}-abcde`,
        Array.from({length: smallEndpoints}, () => endpoint(name)),
      ),
    )
  }
  return {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: [...nodes, ...services, ...slices]}
}

// The load of the whole-cluster benches (bench/scale.mjs, bench/serve.mjs): nodes
// scale-node-NNNN in 3 zones (Ready, 4 CPUs); Services without a selector, spread over 20
// namespaces (bench-scale-NN), each with one hand-made EndpointSlice of 10 ready endpoints on
// those nodes, hinted for their own zone; a third annotated topology-mode Auto, a third
// trafficDistribution PreferSameZone, a third plain. Created once (with bounded concurrency)
// and reused by later runs. Only 127.0.0.1 servers.
//
//   const {server, kc, createLoad, core, disc} = await connectLoad({services, nodes})

export async function connectLoad({services: SERVICES, nodes: NODES}) {
  const PER_SLICE = 10
  const NAMESPACES = 20
  const ZONES = ['zone-a', 'zone-b', 'zone-c']
  const CONCURRENCY = 24
  const LABEL = {'bench.kubectl-topology.io/load': 'scale'}

  if (!process.env.KUBECONFIG) {
    console.error('KUBECONFIG is not set: start a control plane (CLUSTER_INSTANCE=bench node scripts/cluster.mjs up) and eval its env')
    process.exit(2)
  }

  const k8s = await import('@kubernetes/client-node')
  const kc = new k8s.KubeConfig()
  kc.loadFromDefault()
  const server = kc.getCurrentCluster()?.server ?? ''
  if (!/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(server)) {
    console.error(`refusing to create load on ${server}: only a local control plane (127.0.0.1) is allowed`)
    process.exit(2)
  }
  const core = kc.makeApiClient(k8s.CoreV1Api)
  const disc = kc.makeApiClient(k8s.DiscoveryV1Api)
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)

  async function pool(items, fn) {
    let next = 0
    let done = 0
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]
        for (let attempt = 0; ; attempt++) {
          try {
            await fn(item)
            break
          } catch (e) {
            if (e?.code === 409) break // already exists: created by an earlier run
            if (attempt >= 4) throw e
            await new Promise((r) => setTimeout(r, 200 * 2 ** attempt))
          }
        }
        done++
        if (done % 500 === 0) process.stderr.write(`  ${done}/${items.length}\n`)
      }
    }
    await Promise.all(Array.from({length: CONCURRENCY}, worker))
  }

  async function countAll(list) {
    let n = 0
    let cont
    do {
      const page = await list(cont)
      n += page.items.length
      cont = page.metadata?._continue || undefined
    } while (cont)
    return n
  }

  const nodeName = (i) => `scale-node-${String(i).padStart(4, '0')}`
  const zoneOf = (i) => ZONES[i % ZONES.length]
  const nsName = (i) => `bench-scale-${String(i % NAMESPACES).padStart(2, '0')}`
  const svcName = (i) => `svc-${String(i).padStart(4, '0')}`

  async function createLoad() {
    const labelSelector = Object.entries(LABEL)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')
    const [haveNodes, haveSvcs, haveSlices] = await Promise.all([
      countAll((c) => core.listNode({labelSelector, limit: 500, _continue: c})),
      countAll((c) => core.listServiceForAllNamespaces({labelSelector, limit: 500, _continue: c})),
      countAll((c) => disc.listEndpointSliceForAllNamespaces({labelSelector, limit: 500, _continue: c})),
    ])
    if (haveNodes >= NODES && haveSvcs >= SERVICES && haveSlices >= SERVICES) {
      process.stderr.write(`load present: ${haveNodes} nodes, ${haveSvcs} Services, ${haveSlices} EndpointSlices\n`)
      return
    }
    const t0 = Date.now()
    process.stderr.write(`creating ${NODES} nodes\n`)
    await pool(
      Array.from({length: NODES}, (_, i) => i),
      async (i) => {
        const name = nodeName(i)
        try {
          await core.createNode({body: {metadata: {name, labels: {...LABEL, 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zoneOf(i)}}}})
        } catch (e) {
          if (e?.code !== 409) throw e
        }
        const now = new Date().toISOString()
        await core.patchNodeStatus(
          {
            name,
            body: {
              status: {
                allocatable: {cpu: '4', memory: '16Gi', pods: '110'},
                capacity: {cpu: '4', memory: '16Gi', pods: '110'},
                conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'bench', lastHeartbeatTime: now, lastTransitionTime: now}],
              },
            },
          },
          mergePatch,
        )
      },
    )
    process.stderr.write(`creating ${NAMESPACES} namespaces\n`)
    await pool(
      Array.from({length: NAMESPACES}, (_, i) => i),
      (i) => core.createNamespace({body: {metadata: {name: nsName(i), labels: LABEL}}}),
    )
    process.stderr.write(`creating ${SERVICES} Services with one ${PER_SLICE}-endpoint EndpointSlice each\n`)
    await pool(
      Array.from({length: SERVICES}, (_, i) => i),
      async (i) => {
        const namespace = nsName(i)
        const name = svcName(i)
        const kind = i % 3
        const metadata = {name, namespace, labels: {...LABEL, app: name}}
        if (kind === 0) metadata.annotations = {'service.kubernetes.io/topology-mode': 'Auto'}
        const spec = {ports: [{name: 'http', port: 80, protocol: 'TCP', targetPort: 8080}]}
        if (kind === 1) spec.trafficDistribution = 'PreferSameZone'
        try {
          await core.createNamespacedService({namespace, body: {metadata, spec}})
        } catch (e) {
          if (e?.code !== 409) throw e
        }
        const endpoints = Array.from({length: PER_SLICE}, (_, j) => {
          const n = (i * PER_SLICE + j) % NODES
          const ip = `10.${100 + ((i >> 8) & 0x3f)}.${i & 0xff}.${j + 1}`
          return {
            addresses: [ip],
            conditions: {ready: true, serving: true, terminating: false},
            nodeName: nodeName(n),
            zone: zoneOf(n),
            hints: {forZones: [{name: zoneOf(n)}]},
            targetRef: {kind: 'Pod', name: `${name}-${j}`, namespace},
          }
        })
        await disc.createNamespacedEndpointSlice({
          namespace,
          body: {
            metadata: {
              name: `${name}-bench`,
              namespace,
              labels: {...LABEL, 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'bench.kubectl-topology.io'},
            },
            addressType: 'IPv4',
            endpoints,
            ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
          },
        })
      },
    )
    process.stderr.write(`load created in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`)
  }

  return {server, kc, core, disc, createLoad, PER_SLICE, nodeName, nsName, svcName, zoneOf}
}

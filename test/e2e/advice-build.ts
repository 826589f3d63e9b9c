// Builds an advice scenario (test/e2e/advice-scenarios.ts) on the real control plane, and plays
// the scheduler and kubelet (and the HPA and ReplicaSet controllers) for the commands that need
// them: no such controller runs, so after `kubectl scale` or an HPA's new minReplicas the test
// creates or deletes Ready Pods per plan's zone-balanced placement (docs/plan.md).
import {AppsV1Api, AutoscalingV2Api, PatchStrategy, setHeaderOptions} from '@kubernetes/client-node'
import type {AdviceScenario, AdviceService} from './advice-scenarios.js'
import {type Cluster, createDeployment, createHpa, type ExpectedEndpoint} from './fixtures.js'

let nextNet = 0
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch)

/** Ready workers of a zone (not control-plane, Ready not false), by name. */
function workersOf(s: AdviceScenario, zone: string): string[] {
  return s.nodes
    .filter((n) => n.zone === zone && n.ready !== false && !n.labels?.['node-role.kubernetes.io/control-plane'])
    .map((n) => n.name)
    .sort()
}

interface PodRecord {
  name: string
  ip: string
  zone: string
  nodeName: string
}

/** The Pods the test made for each Service of a copy (the scheduler's and kubelet's part). */
export class Copy {
  readonly pods = new Map<string, PodRecord[]>()
  private readonly nets = new Map<string, {net: number; next: number}>()

  constructor(
    readonly c: Cluster,
    readonly scenario: AdviceScenario,
    readonly namespace: string,
  ) {}

  private ip(svc: string): string {
    let n = this.nets.get(svc)
    if (!n) this.nets.set(svc, (n = {net: nextNet++, next: 10}))
    const ip = `10.${100 + (Math.floor(n.net / 250) % 150)}.${n.net % 250}.${n.next}`
    n.next++
    if (n.next > 250) throw new Error(`more than 240 Pods for ${svc}`)
    return ip
  }

  private async addPod(svc: string, zone: string): Promise<void> {
    const list = this.pods.get(svc) ?? []
    this.pods.set(svc, list)
    const ws = workersOf(this.scenario, zone)
    if (ws.length === 0) throw new Error(`${this.scenario.name}: no ready worker in zone ${zone}`)
    // The node of the zone with the fewest of the Service's Pods (ties: node name).
    const count = (n: string) => list.filter((p) => p.nodeName === n).length
    const nodeName = [...ws].sort((a, b) => count(a) - count(b) || (a < b ? -1 : 1))[0]!
    const ip = this.ip(svc)
    const name = `${svc}-${ip.replaceAll('.', '-')}`
    await this.c.createPod({namespace: this.namespace, name, labels: {app: svc}, nodeName, ip, ready: true})
    list.push({name, ip, zone, nodeName})
  }

  private async removePod(svc: string, zone: string): Promise<void> {
    const list = this.pods.get(svc) ?? []
    // The most crowded node of the zone, its newest Pod.
    const inZone = list.filter((p) => p.zone === zone)
    const count = (n: string) => inZone.filter((p) => p.nodeName === n).length
    const victim = [...inZone].sort((a, b) => count(b.nodeName) - count(a.nodeName) || list.indexOf(b) - list.indexOf(a))[0]
    if (!victim) throw new Error(`no Pod of ${svc} in ${zone} to remove`)
    await this.c.core.deleteNamespacedPod({name: victim.name, namespace: this.namespace, gracePeriodSeconds: 0})
    list.splice(list.indexOf(victim), 1)
  }

  expected(svc: string): ExpectedEndpoint[] {
    return (this.pods.get(svc) ?? []).map((p) => ({ip: p.ip, ready: true}))
  }

  zoneCounts(svc: string): Record<string, number> {
    const out: Record<string, number> = {}
    for (const p of this.pods.get(svc) ?? []) out[p.zone] = (out[p.zone] ?? 0) + 1
    return out
  }

  /** Makes the Service's Ready Pods per zone equal `want` (zone -> count), then waits for the controller's slices. */
  async place(svc: string, want: Record<string, number>): Promise<void> {
    const have = this.zoneCounts(svc)
    for (const zone of new Set([...Object.keys(have), ...Object.keys(want)])) {
      for (let k = have[zone] ?? 0; k < (want[zone] ?? 0); k++) await this.addPod(svc, zone)
      for (let k = have[zone] ?? 0; k > (want[zone] ?? 0); k--) await this.removePod(svc, zone)
    }
    await this.c.waitForReconciled({namespace: this.namespace, service: svc, expectedEndpoints: this.expected(svc)})
  }

  /** Nodes are the caller's (shared by copies); the namespace must exist. */
  async build(): Promise<void> {
    const apps = this.c.kc.makeApiClient(AppsV1Api)
    for (const s of this.scenario.services) {
      const labels = {app: s.name}
      const total = Object.values(s.pods).reduce((a, b) => a + b, 0)
      const w = s.workload
      if (w?.kind === 'Deployment') {
        await createDeployment({
          namespace: this.namespace,
          name: w.name ?? s.name,
          replicas: w.replicas ?? total,
          labels,
          ...(w.zoneSpread ? {zoneSpread: w.zoneSpread} : {}),
          ...(w.maxSurge !== undefined ? {maxSurge: w.maxSurge} : {}),
          ...(w.maxUnavailable !== undefined ? {maxUnavailable: w.maxUnavailable} : {}),
        })
      } else if (w?.kind === 'StatefulSet') {
        await apps.createNamespacedStatefulSet({
          namespace: this.namespace,
          body: {
            metadata: {name: w.name ?? s.name},
            spec: {
              replicas: w.replicas ?? total,
              serviceName: s.name,
              selector: {matchLabels: labels},
              template: {metadata: {labels}, spec: {containers: [{name: 'app', image: 'registry.invalid/e2e/app:1'}]}},
            },
          },
        })
      }
      if (w?.hpa) await createHpa({namespace: this.namespace, name: w.name ?? s.name, deployment: w.name ?? s.name, min: w.hpa.min, max: w.hpa.max})
      for (const [zone, n] of Object.entries(s.pods)) for (let k = 0; k < n; k++) await this.addPod(s.name, zone)
    }
    // Services last: the controller's first sync of each sees every Pod.
    for (const s of this.scenario.services) {
      await this.c.createService({
        namespace: this.namespace,
        name: s.name,
        selector: {app: s.name},
        ...(s.annotations ? {annotations: s.annotations} : {}),
        ...(s.trafficDistribution ? {trafficDistribution: s.trafficDistribution} : {}),
      })
    }
    for (const s of this.scenario.services) {
      await this.c.waitForReconciled({namespace: this.namespace, service: s.name, expectedEndpoints: this.expected(s.name), expectEvent: autoAnnotated(s) ? true : undefined})
    }
  }

  // ---- the objects a command may change -------------------------------------------------------

  /** resourceVersions of the Service and the workload and HPA behind it. */
  async versions(svc: string): Promise<Record<string, string>> {
    const s = this.scenario.services.find((x) => x.name === svc)!
    const out: Record<string, string> = {}
    const svcObj = await this.c.core.readNamespacedService({name: svc, namespace: this.namespace})
    out.service = svcObj.metadata?.resourceVersion ?? ''
    const w = s.workload
    if (w) {
      const apps = this.c.kc.makeApiClient(AppsV1Api)
      const name = w.name ?? s.name
      const obj =
        w.kind === 'Deployment' ? await apps.readNamespacedDeployment({name, namespace: this.namespace}) : await apps.readNamespacedStatefulSet({name, namespace: this.namespace})
      out[w.kind] = obj.metadata?.resourceVersion ?? ''
      if (w.hpa) {
        const hpa = await this.c.kc.makeApiClient(AutoscalingV2Api).readNamespacedHorizontalPodAutoscaler({name, namespace: this.namespace})
        out.hpa = hpa.metadata?.resourceVersion ?? ''
      }
    }
    return out
  }

  async workloadReplicas(svc: string): Promise<number | null> {
    const s = this.scenario.services.find((x) => x.name === svc)!
    const w = s.workload
    if (!w) return null
    const apps = this.c.kc.makeApiClient(AppsV1Api)
    const name = w.name ?? s.name
    const obj =
      w.kind === 'Deployment' ? await apps.readNamespacedDeployment({name, namespace: this.namespace}) : await apps.readNamespacedStatefulSet({name, namespace: this.namespace})
    return obj.spec?.replicas ?? null
  }

  async hpaMin(svc: string): Promise<number | null> {
    const s = this.scenario.services.find((x) => x.name === svc)!
    if (!s.workload?.hpa) return null
    const hpa = await this.c.kc.makeApiClient(AutoscalingV2Api).readNamespacedHorizontalPodAutoscaler({name: s.workload.name ?? s.name, namespace: this.namespace})
    return hpa.spec?.minReplicas ?? 1
  }

  /** The HPA controller's part: a workload below the HPA's minReplicas is scaled up to it. */
  async scaleWorkload(svc: string, replicas: number): Promise<void> {
    const s = this.scenario.services.find((x) => x.name === svc)!
    const w = s.workload!
    const apps = this.c.kc.makeApiClient(AppsV1Api)
    const name = w.name ?? s.name
    const body = {spec: {replicas}}
    if (w.kind === 'Deployment') await apps.patchNamespacedDeploymentScale({name, namespace: this.namespace, body}, MERGE)
    else await apps.patchNamespacedStatefulSetScale({name, namespace: this.namespace, body}, MERGE)
  }
}

function autoAnnotated(s: AdviceService): boolean {
  const v = s.annotations?.['service.kubernetes.io/topology-mode'] ?? s.annotations?.['service.kubernetes.io/topology-aware-hints']
  return v === 'Auto' || v === 'auto'
}

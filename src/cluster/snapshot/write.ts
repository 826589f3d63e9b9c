// ClusterState -> our Snapshot document (`kubectl topology snapshot`): what a snapshot keeps of
// each object (what kubectl-topology reads, never managedFields, a workload's pod spec or its
// annotations), optionally redacted (redact.ts), and its YAML text.

import {stringify} from 'yaml'
import type {Deployment, Endpoint, EndpointSlice, HorizontalPodAutoscaler, Node, ObjectMeta, PodDisruptionBudget, StatefulSet} from '../../upstream/api/types.js'
import type {ClusterState} from '../../state/cluster-state.js'
import {SNAPSHOT_API_VERSION, SNAPSHOT_KIND, type Obj, type Snapshot} from './format.js'
import {redactState, type RedactedState} from './redact.js'

function withoutManagedFields<T extends {metadata: ObjectMeta}>(o: T): T {
  const meta = o.metadata as ObjectMeta & {managedFields?: unknown}
  if (meta.managedFields === undefined) return o
  const {managedFields: _drop, ...rest} = meta
  return {...o, metadata: rest}
}

/**
 * A Node as the snapshot keeps it: what kubectl-topology reads (metadata, spec.unschedulable and
 * taints, allocatable, capacity, and each condition's type, status and reason). A Node's
 * nodeInfo, images, addresses, daemonEndpoints, volumes and condition heartbeats are most of
 * its bytes, change all the time, and only slow down reading the file (docs/design.md "Startup").
 */
function nodeForSnapshot(n: Node): Node {
  const {spec: _spec, status: _status, ...rest} = withoutManagedFields(n)
  const out: Node = rest
  const spec = n.spec as (Obj & {unschedulable?: boolean; taints?: unknown}) | undefined
  if (spec && (spec.unschedulable !== undefined || spec.taints !== undefined)) {
    out.spec = {} as Node['spec'] & Obj
    if (spec.unschedulable !== undefined) out.spec!.unschedulable = spec.unschedulable
    if (spec.taints !== undefined) (out.spec as Obj).taints = spec.taints
  }
  if (n.status) {
    const st: NonNullable<Node['status']> = {}
    if (n.status.allocatable) st.allocatable = n.status.allocatable
    if (n.status.capacity) st.capacity = n.status.capacity
    if (n.status.conditions) st.conditions = n.status.conditions.map((c) => ({type: c.type, status: c.status, ...(c.reason ? {reason: c.reason} : {})}))
    out.status = st
  }
  return out
}

/** An EndpointSlice as the snapshot keeps it: endpoints refer to their Pods by kind, namespace and name. */
function sliceForSnapshot(sl: EndpointSlice): EndpointSlice {
  const out = withoutManagedFields(sl)
  if (!out.endpoints?.some((e) => e.targetRef?.uid !== undefined || (e.targetRef as Obj | undefined)?.resourceVersion !== undefined)) return out
  return {
    ...out,
    endpoints: out.endpoints.map((e) => {
      if (e.targetRef === undefined) return e
      const {uid: _uid, resourceVersion: _rv, ...ref} = e.targetRef as NonNullable<Endpoint['targetRef']> & {resourceVersion?: string}
      return {...e, targetRef: ref}
    }),
  }
}

/** name, namespace and labels: what a snapshot keeps of a workload's, an HPA's or a PDB's metadata. */
function shortMeta(m: ObjectMeta): ObjectMeta {
  const metadata: ObjectMeta = {name: m.name}
  if (m.namespace !== undefined) metadata.namespace = m.namespace
  if (m.labels) metadata.labels = {...m.labels}
  return metadata
}

/**
 * A Deployment or StatefulSet as the snapshot keeps it: name, namespace, labels, replicas, the
 * selector, the update strategy, the pod template's labels and its topologySpreadConstraints
 * (plan's placement model). Never the rest of the pod template's spec (its environment can hold
 * secrets) nor annotations (last-applied-configuration holds it too).
 */
function workloadForSnapshot(w: Deployment | StatefulSet): Deployment | StatefulSet {
  const metadata = shortMeta(w.metadata)
  const src = (w.spec ?? {}) as Obj
  const fields = w.kind === 'StatefulSet' ? ['replicas', 'selector', 'serviceName', 'podManagementPolicy', 'updateStrategy'] : ['replicas', 'selector', 'strategy', 'paused']
  const spec: Obj = {}
  for (const f of fields) if (src[f] !== undefined) spec[f] = src[f]
  const labels = w.spec?.template?.metadata?.labels
  const spread = w.spec?.template?.spec?.topologySpreadConstraints
  if (labels || spread) {
    const template: Obj = {}
    if (labels) template.metadata = {labels: {...labels}}
    if (spread) template.spec = {topologySpreadConstraints: structuredClone(spread)}
    spec.template = template
  }
  return {apiVersion: 'apps/v1', kind: w.kind, metadata, spec} as Deployment | StatefulSet
}

/** An HPA as the snapshot keeps it: its target and bounds (never its metrics or status). */
function hpaForSnapshot(h: HorizontalPodAutoscaler): HorizontalPodAutoscaler {
  const src = (h.spec ?? {}) as Obj
  const spec: Obj = {}
  for (const f of ['scaleTargetRef', 'minReplicas', 'maxReplicas']) if (src[f] !== undefined && src[f] !== null) spec[f] = structuredClone(src[f])
  return {apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: shortMeta(h.metadata), spec} as HorizontalPodAutoscaler
}

/** A PDB as the snapshot keeps it: its selector and budget (never its status). */
function pdbForSnapshot(p: PodDisruptionBudget): PodDisruptionBudget {
  const src = (p.spec ?? {}) as Obj
  const spec: Obj = {}
  for (const f of ['selector', 'minAvailable', 'maxUnavailable']) if (src[f] !== undefined && src[f] !== null) spec[f] = structuredClone(src[f])
  return {apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: shortMeta(p.metadata), spec} as PodDisruptionBudget
}

/** Our Snapshot document for `kubectl topology snapshot`: what kubectl-topology reads; with redact, also no addresses or node/pod names. */
export function serializeSnapshot(state: ClusterState, opts: {redact?: boolean} = {}): Snapshot {
  const body: RedactedState = opts.redact
    ? redactState(state)
    : {
        nodes: state.nodes.map(nodeForSnapshot),
        services: state.services.map(withoutManagedFields),
        endpointSlices: state.endpointSlices.map(sliceForSnapshot),
        ...(state.events ? {events: state.events.map(withoutManagedFields)} : {}),
      }
  // Workloads are kept the same way with or without --redact.
  const deployments = state.deployments?.map((w) => workloadForSnapshot(w) as Deployment)
  const statefulSets = state.statefulSets?.map((w) => workloadForSnapshot(w) as StatefulSet)
  const snap: Snapshot = {apiVersion: SNAPSHOT_API_VERSION, kind: SNAPSHOT_KIND, nodes: [], services: [], endpointSlices: []}
  if (state.serverVersion !== undefined) snap.serverVersion = state.serverVersion
  if (state.nodesReadable === false) snap.nodesReadable = false
  snap.nodes = body.nodes
  snap.services = body.services
  snap.endpointSlices = body.endpointSlices
  if (deployments) snap.deployments = deployments
  if (statefulSets) snap.statefulSets = statefulSets
  // HPAs and PDBs, like the workloads, are kept the same way with or without --redact.
  if (state.horizontalPodAutoscalers) snap.horizontalPodAutoscalers = state.horizontalPodAutoscalers.map(hpaForSnapshot)
  if (state.podDisruptionBudgets) snap.podDisruptionBudgets = state.podDisruptionBudgets.map(pdbForSnapshot)
  if (body.events) snap.events = body.events
  // The data plane detected when the snapshot was taken (the answer, not the DaemonSets: their
  // pod specs can hold secrets); --from-file reports it with source "snapshot".
  if (state.dataPlane) snap.dataPlane = state.dataPlane
  // The meshes' and gateways' objects read (trimmed when read: no pod-spec environment), so
  // --from-file answers who routes each request as the live read did.
  // With --redact, the Pods' names go (their namespaces and labels are what the model reads).
  if (state.routes)
    snap.routes =
      opts.redact && state.routes.pods ? {...state.routes, pods: state.routes.pods.map((p, i) => ({...p, metadata: {...p.metadata, name: `pod-${i + 1}`}}))} : state.routes
  return snap
}

/** The Snapshot as YAML (tests' round trips; `kubectl topology snapshot` writes it with render/encode.ts, control characters escaped). */
export function snapshotYaml(snap: Snapshot): string {
  return stringify(snap, {lineWidth: 0})
}

// The state every command works on: the API objects of one cluster, read live or from a
// snapshot file (src/cluster/ makes it; every domain room reads it).
import type {DataPlane} from '../dataplane/types.js'
import type {RoutesObjects} from '../dataplane/routes/types.js'
import type {Deployment, EndpointSlice, EventObject, HorizontalPodAutoscaler, Node, PodDisruptionBudget, Service, StatefulSet} from '../upstream/api/types.js'

/** Everything explain needs, from a live cluster or a snapshot file. */
export interface ClusterState {
  nodes: Node[]
  services: Service[]
  endpointSlices: EndpointSlice[]
  /** Events on Services (optional; a snapshot may not carry them). */
  events?: EventObject[]
  /**
   * The Deployments and StatefulSets that may stand behind the Services (simulate
   * --rollout from-workload). Absent when they were not read (an older snapshot, a
   * command that does not need them).
   */
  deployments?: Deployment[]
  statefulSets?: StatefulSet[]
  /** HorizontalPodAutoscalers and PodDisruptionBudgets (plan); absent when not read. */
  horizontalPodAutoscalers?: HorizontalPodAutoscaler[]
  podDisruptionBudgets?: PodDisruptionBudget[]
  /** The API server's version, e.g. "1.36.3"; absent for snapshots. */
  serverVersion?: string
  /** False when Nodes could not be read (RBAC): the CPU heuristic cannot be computed. */
  nodesReadable?: boolean
  /**
   * The data plane detected when the state was read live (openSource with dataPlane 'detect'),
   * or recorded in a snapshot; absent when not read (older snapshots, `kubectl get` output).
   */
  dataPlane?: DataPlane
  /**
   * The meshes' and gateways' objects (src/dataplane/routes/), trimmed: read live when asked
   * for (--client-paths) or recorded in a snapshot; absent when not read.
   */
  routes?: RoutesObjects
  /** Statements about a file's contents the reader should see (an object given twice with different contents); absent when none. */
  inputNotes?: string[]
}

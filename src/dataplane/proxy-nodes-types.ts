// Types of proxy-nodes.ts: the wire-format subset of a v1 Pod it reads (what `kubectl get -o
// json` prints), and its answer, one entry per node.

import type {ObjectMeta} from '../upstream/api/types.js'
import type {Container} from './types.js'

/** v1 Pod, the fields the per-node kube-proxy version reads. */
export interface KubeProxyPod {
  apiVersion?: string
  kind?: 'Pod'
  metadata: ObjectMeta
  spec?: {nodeName?: string; containers?: Container[]}
  status?: {phase?: string}
}

/** The kube-proxy of one node. */
export interface ProxyNodeVersion {
  node: string
  /** From the image tag without "v" and build suffixes ("1.33.13"); null when the image has no version tag. */
  version: string | null
  image: string | null
  /** A DaemonSet's Pod, a static Pod's mirror, or (no Pod on the node) the DaemonSet's template. */
  from: 'pod' | 'static-pod' | 'daemonset'
  /** The object read: "Pod kube-system/kube-proxy-x2k9f", "DaemonSet kube-system/kube-proxy". */
  object: string
}

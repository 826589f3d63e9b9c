// The kubeconfig loader's options and the context it gives every API call in src/cluster
// (kubeconfig.ts loads it).

import type {WatchFn} from './http.js'
import type {TokenFile} from './token-file.js'
import type {ConfigurationOptions, KubeConfig} from './k8s.js'

export interface LoadKubeConfigOptions {
  /** --kubeconfig: use exactly this file (overrides KUBECONFIG). */
  kubeconfig?: string
  /** --context: use this context instead of current-context. */
  context?: string
  /** -n/--namespace. */
  namespace?: string
  /** --request-timeout in milliseconds; 0 or undefined = no timeout (kubectl's default). */
  requestTimeoutMs?: number
  /** The command has no --from-file (snapshot, watch): the no-kubeconfig line does not offer it. */
  liveOnly?: boolean
}

export interface RequestStats {
  /** HTTP requests sent to the API server through `apiOptions` so far. */
  requests: number
}

export interface KubeContext {
  kc: KubeConfig
  contextName: string
  /** flag ?? the context's namespace ?? 'default'. */
  namespace: string
  /** API server URL without credentials, for messages. */
  server: string
  /** The cluster's proxy-url without credentials, for messages; absent: no proxy. */
  proxy?: string
  clusterName: string
  /** Name of the kubeconfig user (never its credentials). */
  userName?: string
  /** The command of an exec credential plugin, if the user has one (for error messages). */
  execCommand?: string
  /** The kubeconfig files that were read ([] for in-cluster config). */
  files: string[]
  /** 0 = none. */
  requestTimeoutMs: number
  /** Pass as the 2nd argument of every client-node call: timeout, request counting, the transport (http.ts). */
  apiOptions: ConfigurationOptions
  stats: RequestStats
  /** Starts one watch request on the same transport (http.ts); absent: client-node's Watch. */
  watch?: WatchFn
  /** The user's bearer token comes from this file, read again as it rotates (token-file.ts). */
  tokenFile?: TokenFile
}

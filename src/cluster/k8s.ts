// The single place that imports @kubernetes/client-node. Only named symbols are
// re-exported so esbuild can tree-shake the (very large) package; callers load this
// module lazily with `await import('./k8s.js')`, and only on code paths that need a live
// cluster. Type-only imports from here are free (erased at compile time).

export {
  KubeConfig,
  AppsV1Api,
  AutoscalingV2Api,
  PolicyV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  VersionApi,
  AuthorizationV1Api,
  CustomObjectsApi,
  ApiException,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from '@kubernetes/client-node'
export type {
  ConfigurationOptions,
  Context as KubeConfigContext,
  Cluster as KubeConfigCluster,
  V1Node,
  V1Service,
  V1EndpointSlice,
  V1ManagedFieldsEntry,
  CoreV1Event,
  VersionInfo,
} from '@kubernetes/client-node'
// Not exported from the package root in 2.0.1; the package has no `exports` map, so deep
// imports resolve. `of` builds the Observable the (observable-style) middleware returns.
export {of} from '@kubernetes/client-node/dist/gen/rxjsStub.js'
export {ObjectSerializer} from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js'
// The transport (http.ts): undici's request() and Agent, and client-node's request/response types.
export {Agent as UndiciAgent, request as undiciRequest} from 'undici'
export {HttpInfo, HttpMethod, RequestContext, ResponseContext, wrapHttpLibrary} from '@kubernetes/client-node'
// The transport of clusters behind a proxy-url (proxy.ts): sockets, TLS and SOCKS5.
export {connect as netConnect, isIP} from 'node:net'
export {connect as tlsConnect, getCACertificates} from 'node:tls'
/** socks, for a socks5:// proxy-url only: loaded on first use, not with every live read (about a sixth of this bundle's load time). */
export const loadSocks = async () => (await import('socks')).SocksClient

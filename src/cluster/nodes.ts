// Reading only the Nodes (for `kubectl topology nodes`): one paginated list, nothing else,
// so the command needs no permission beyond "list nodes".
import type {Node} from '../upstream/api/types.js'
import {toCliError, type ErrorContext} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {clean} from './live.js'

export interface LiveNodes {
  nodes: Node[]
  /** HTTP requests sent. */
  requests: number
}

export async function readNodes(ctx: KubeContext, opts: {pageSize?: number} = {}): Promise<LiveNodes> {
  const k8s = await import('./k8s.js')
  const core = ctx.kc.makeApiClient(k8s.CoreV1Api)
  const start = ctx.stats.requests
  const errCtx: ErrorContext = {
    server: ctx.server,
    contextName: ctx.contextName,
    requestTimeoutMs: ctx.requestTimeoutMs,
    ...(ctx.execCommand ? {execCommand: ctx.execCommand} : {}),
  }
  const nodes: Node[] = []
  let cont: string | undefined
  try {
    do {
      const page = await core.listNode({limit: opts.pageSize ?? 500, _continue: cont}, ctx.apiOptions)
      for (const n of page.items ?? []) nodes.push({apiVersion: 'v1', kind: 'Node', ...(clean(k8s.ObjectSerializer.serialize(n, 'V1Node', '')) as Omit<Node, 'kind'>)})
      cont = page.metadata?._continue || undefined
    } while (cont)
  } catch (e) {
    throw toCliError(e, 'list nodes', errCtx)
  }
  const out: LiveNodes = {nodes, requests: 0}
  out.requests = ctx.stats.requests - start
  return out
}

// Reading only the Nodes (for `kubectl topology nodes`): one paginated list, nothing else,
// so the command needs no permission beyond "list nodes".
import type {Node} from '../upstream/api/types.js'
import {Client} from './client.js'
import type {KubeContext} from './kubeconfig.js'
import {listNodes} from './resources.js'

export interface LiveNodes {
  nodes: Node[]
  /** HTTP requests sent. */
  requests: number
}

export async function readNodes(ctx: KubeContext, opts: {pageSize?: number} = {}): Promise<LiveNodes> {
  const c = await Client.connect(ctx, opts)
  const nodes = await listNodes(c)
  return {nodes, requests: c.requests}
}

// What the test proxies (apiproxy.ts, streamproxy.ts) share: the local control plane they
// forward to, read from $KUBECONFIG (loopback only), and a kubeconfig that points the CLI at
// the proxy instead (same contexts and tokens).
import fs from 'node:fs'
import type http from 'node:http'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import {parse as parseYaml} from 'yaml'

type Kubeconfig = {clusters: {name: string; cluster: Record<string, string>}[]; [k: string]: unknown}

export interface Upstream {
  kc: Kubeconfig
  url: URL
  agent: https.Agent
}

/** The API server of $KUBECONFIG, with an agent trusting its CA. Refuses anything but 127.0.0.1. */
export function localUpstream(): Upstream {
  const src = process.env.KUBECONFIG
  if (!src) throw new Error('KUBECONFIG is not set')
  const kc = parseYaml(fs.readFileSync(src, 'utf8')) as Kubeconfig
  const url = new URL(kc.clusters[0]!.cluster.server!)
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to proxy to ${url.href}: only the local control plane`)
  const ca = Buffer.from(kc.clusters[0]!.cluster['certificate-authority-data']!, 'base64')
  return {kc, url, agent: new https.Agent({ca, keepAlive: true})}
}

/** Listens on a free loopback port and writes a kubeconfig whose clusters point at it. */
export async function listenWithKubeconfig(server: http.Server, kc: Kubeconfig, prefix: string): Promise<{file: string; dir: string}> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as {port: number}).port
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const proxied = structuredClone(kc)
  for (const c of proxied.clusters) c.cluster = {server: `http://127.0.0.1:${port}`}
  const file = path.join(dir, 'kubeconfig')
  fs.writeFileSync(file, JSON.stringify(proxied), {mode: 0o600})
  return {file, dir}
}

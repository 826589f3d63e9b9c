// A kubeconfig proxy-url in front of the real control plane (scripts/cluster.mjs): the CLI
// reads the same Nodes through an HTTP CONNECT proxy and through a SOCKS5 proxy (with a user and
// password) as directly, and each proxy sees the tunnel to the API server. The proxies are the
// ones of test/cli/proxy.test.ts (test/cli/proxy-servers.ts), on 127.0.0.1.
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {httpProxy, listenOn, proxyLog, socks5Proxy} from '../cli/proxy-servers.js'
import {runCliAsync} from './apiproxy.js'
import {createNode, deleteAllNodes, kubeConfig} from './fixtures.js'

const log = proxyLog()
const servers: net.Server[] = []
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-e2e-proxy-'))
const proxies: Record<string, string> = {}
let apiHost = ''

beforeAll(async () => {
  kubeConfig('admin') // refuses anything but a loopback server
  await deleteAllNodes()
  for (const zone of ['zone-a', 'zone-b', 'zone-c']) await createNode({name: `${zone}-node`, zone, cpu: 4})
  const h = httpProxy(http.createServer(), log, 'alice', 'pw')
  const s = socks5Proxy(log, 'alice', 'pw')
  servers.push(h, s)
  proxies.http = `http://alice:pw@127.0.0.1:${await listenOn(h)}`
  proxies.socks5 = `socks5://alice:pw@127.0.0.1:${await listenOn(s)}`
  const kc = parseYaml(fs.readFileSync(process.env.KUBECONFIG!, 'utf8')) as {clusters: {cluster: Record<string, string>}[]}
  apiHost = new URL(kc.clusters[0]!.cluster.server!).host
})
afterAll(async () => {
  for (const s of log.sockets) s.destroy()
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  fs.rmSync(tmp, {recursive: true, force: true})
})

/** $KUBECONFIG with every cluster behind proxyUrl. */
function behind(proxyUrl: string): string {
  const kc = parseYaml(fs.readFileSync(process.env.KUBECONFIG!, 'utf8')) as {clusters: {cluster: Record<string, string>}[]}
  for (const c of kc.clusters) c.cluster['proxy-url'] = proxyUrl
  const file = path.join(tmp, `kubeconfig-${Object.keys(proxies).find((k) => proxies[k] === proxyUrl)}`)
  fs.writeFileSync(file, JSON.stringify(kc), {mode: 0o600})
  return file
}

describe('proxy-url in front of the real API server', () => {
  for (const scheme of ['http', 'socks5']) {
    it(`${scheme}: nodes -o json reads what it reads directly`, async () => {
      const direct = await runCliAsync(['nodes', '-o', 'json', '--context', 'admin'])
      expect(direct.code).toBe(0)
      log.seen.length = 0
      const r = await runCliAsync(['nodes', '-o', 'json', '--context', 'admin', '--kubeconfig', behind(proxies[scheme]!)])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(direct.stdout))
      expect(log.seen).toContain(scheme === 'http' ? `CONNECT ${apiHost}` : `SOCKS5 CONNECT ${apiHost}`)
    })
  }
})

// openSource on a live cluster (a fake API server on 127.0.0.1): the data plane's reads go out
// with the state's lists, not after them, and an error is still the state's when both fail.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {openSource} from '../../src/cluster/source.js'
import {writeFakeKubeconfig} from './fake-kubeconfig.js'

type Obj = Record<string, unknown>

const fake = {
  /** The Services list's answer waits for the first DaemonSet list (at most HOLD_MS, so that a read that never sends one still ends). */
  holdServices: false,
  /** Whether the held Services answer was let go by a DaemonSet list (not by the bound). */
  releasedByDaemonSets: false,
  servicesStatus: 200,
  daemonSetStatus: 200,
  requests: [] as string[],
}
const HOLD_MS = 3000
let release: (() => void) | undefined

function send(res: http.ServerResponse, code: number, body: Obj): void {
  res.writeHead(code, {'content-type': 'application/json'})
  res.end(JSON.stringify(body))
}
const list = (kind: string, items: Obj[] = []): Obj => ({kind, apiVersion: 'v1', metadata: {resourceVersion: '1'}, items})
const failure = (code: number, reason: string, message: string): Obj => ({kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message})

const handler: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const p = url.pathname
  fake.requests.push(p)
  if (p === '/version') return send(res, 200, {major: '1', minor: '36', gitVersion: 'v1.36.3'})
  if (p === '/api/v1/nodes') return send(res, 200, list('NodeList', [{metadata: {name: 'n1', labels: {'topology.kubernetes.io/zone': 'a'}}, status: {allocatable: {cpu: '4'}}}]))
  if (p === '/api/v1/services') {
    const answer = () =>
      fake.servicesStatus === 200
        ? send(res, 200, list('ServiceList', [{metadata: {name: 'web', namespace: 'shop'}, spec: {ports: [{port: 80}]}}]))
        : send(res, fake.servicesStatus, failure(fake.servicesStatus, 'InternalError', 'etcd is down'))
    if (!fake.holdServices) return answer()
    const bound = setTimeout(() => {
      release = undefined
      answer()
    }, HOLD_MS)
    release = () => {
      clearTimeout(bound)
      fake.releasedByDaemonSets = true
      answer()
    }
    return
  }
  if (p === '/apis/discovery.k8s.io/v1/endpointslices') return send(res, 200, list('EndpointSliceList'))
  if (p === '/api/v1/events') return send(res, 200, list('EventList'))
  if (/^\/apis\/apps\/v1\/namespaces\/[^/]+\/daemonsets$/.test(p)) {
    release?.()
    release = undefined
    if (fake.daemonSetStatus !== 200) return send(res, fake.daemonSetStatus, failure(fake.daemonSetStatus, 'Unauthorized', 'Unauthorized'))
    return send(res, 200, list('DaemonSetList'))
  }
  if (p === '/api/v1/namespaces/kube-system/pods') return send(res, 200, list('PodList'))
  send(res, 404, failure(404, 'NotFound', 'the server could not find the requested resource'))
}

let server: http.Server
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-source-live-'))
const kubeconfig = path.join(tmp, 'config')

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  writeFakeKubeconfig(kubeconfig, server, 'shop')
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  fs.rmSync(tmp, {recursive: true, force: true})
})
beforeEach(() => {
  Object.assign(fake, {holdServices: false, releasedByDaemonSets: false, servicesStatus: 200, daemonSetStatus: 200, requests: []})
  release = undefined
})

const read = () => openSource({flags: {kubeconfig, 'all-namespaces': true, 'request-timeout': '10s'}, withEvents: 'optional', dataPlane: 'detect'})

describe('openSource, live, with the data plane detected', () => {
  it("sends the data plane's reads while the state's lists are still out (one round trip less)", async () => {
    fake.holdServices = true
    const r = await read()
    expect(fake.releasedByDaemonSets).toBe(true)
    expect(r.state.services.map((s) => s.metadata.name)).toEqual(['web'])
    expect(r.dataPlane?.name).toBe('unknown')
    expect(r.warnings).toEqual(r.dataPlane?.warnings)
    expect(fake.requests).toContain('/apis/apps/v1/namespaces/kube-system/daemonsets')
  })

  it("reports the state's error when both reads fail, whichever answer came first", async () => {
    fake.servicesStatus = 500
    fake.daemonSetStatus = 401
    await expect(read()).rejects.toThrow('Error from server (InternalError): etcd is down')
  })
})

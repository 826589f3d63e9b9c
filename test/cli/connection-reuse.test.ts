// Issue 20 (noticed): client-node makes an undici Agent per request, so every request opened a
// connection of its own and left a keep-alive socket behind; paging a long list opened one per
// page. src/cluster/http.ts shares one Agent per context: requests made one after another reuse
// its connection. Counted at the scripted API server (test/fixtures/fault-server.ts): the
// number of TCP connections it accepts for a list in 60 pages. Before: 60 or more (one per
// request); now a handful (one, plus one per request made in parallel). `npm run build` first.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type FaultServer, faults, isList, runCliAsync, startFaultServer} from '../fixtures/fault-server.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-reuse-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))
let srv: FaultServer
beforeEach(async () => {
  // An API server keeps idle connections for minutes (Go's net/http: no idle timeout unless set).
  srv = await startFaultServer([], {keepAliveMs: 60_000})
})
afterEach(() => srv.close())

const PAGES = 60

describe('one Agent per context: requests reuse their connection', () => {
  it(`nodes listed in ${PAGES} pages: every page is a request, a few connections in all`, async () => {
    srv.faults.push(faults.pages(isList(/^\/api\/v1\/nodes$/), PAGES))
    const r = await runCliAsync(['nodes', '--kubeconfig', srv.kubeconfig(tmp), '--request-timeout', '10s'], {env: {XDG_STATE_HOME: path.join(tmp, 'state')}})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('n3')
    const requests = srv.log.length
    expect(srv.count((q) => q.path === '/api/v1/nodes')).toBe(PAGES)
    expect(srv.connections(), `${srv.connections()} connections for ${requests} requests`).toBeLessThanOrEqual(5)
  })

  it('explain in a namespace (lists in parallel): fewer connections than requests', async () => {
    srv.faults.push(faults.pages(isList(/^\/api\/v1\/nodes$/), PAGES))
    const r = await runCliAsync(['explain', 'svc/web', '-n', 'shop', '--kubeconfig', srv.kubeconfig(tmp), '--request-timeout', '10s'], {
      env: {XDG_STATE_HOME: path.join(tmp, 'state')},
    })
    expect(r.code, r.stderr).toBe(0)
    expect(srv.log.length).toBeGreaterThan(PAGES)
    expect(srv.connections()).toBeLessThanOrEqual(srv.log.length - PAGES + 5)
  })
})

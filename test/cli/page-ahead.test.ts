// A list's next page is asked for as soon as the head of the one before names its continue
// token (src/cluster/page-ahead.ts), while that page's items are still arriving; and a page
// that fails after its head still ends the command with the error it ended with before, at
// once. At the scripted API server (test/fixtures/fault-server.ts); `npm run build` first.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type Fault, type FaultServer, isList, runCliAsync, startFaultServer} from '../fixtures/fault-server.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-ahead-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))
let srv: FaultServer
beforeEach(async () => {
  srv = await startFaultServer([], {keepAliveMs: 60_000})
})
afterEach(() => srv.close())

const nodes = isList(/^\/api\/v1\/nodes$/)
const PAGES = 3
/** How long a page's items wait for the next page's request (the old client never sends it meanwhile). */
const HOLD_MS = 1500

const pageOf = (r: {query: URLSearchParams}) => Number(r.query.get('continue')?.replace('page-', '') ?? '0')
const head = (next: number | undefined) =>
  `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"20"${next === undefined ? '' : `,"continue":"page-${next}"`}},"items":[`

/**
 * Nodes in PAGES pages (all of the cluster's on the last): each page but the last sends its
 * head, then `rest` decides how it goes on; `open` records, per page, whether the next page's
 * request came while it was still open.
 */
function heldPages(rest: (page: number, res: import('node:http').ServerResponse, items: string) => Promise<void>): Fault {
  return async (r, res, s) => {
    if (!nodes(r)) return false
    const n = pageOf(r)
    const whole = JSON.parse(s.answer(r).body) as {items: unknown[]}
    const items = JSON.stringify(whole.items).slice(1, -1)
    res.writeHead(200, {'content-type': 'application/json'})
    if (n + 1 >= PAGES) {
      res.end(`${head(undefined)}${items}]}`)
      return true
    }
    res.write(head(n + 1))
    await rest(n, res, items)
    return true
  }
}

const askedFor = (page: number) => srv.count((q) => nodes(q) && pageOf(q) === page) > 0

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (cond()) return true
    await new Promise((r) => setTimeout(r, 10))
  }
  return cond()
}

const run = () => runCliAsync(['nodes', '-o', 'json', '--kubeconfig', srv.kubeconfig(tmp), '--request-timeout', '20s'], {env: {XDG_STATE_HOME: path.join(tmp, 'state')}})

describe('the next page of a list', () => {
  it("is asked for while this page's items are still arriving", async () => {
    const overlapped: boolean[] = []
    srv.faults.push(
      heldPages(async (n, res) => {
        overlapped[n] = await until(() => askedFor(n + 1), HOLD_MS)
        res.end(']}')
      }),
    )
    const r = await run()
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as {totals: {nodes: number}}).totals.nodes).toBe(3)
    expect(overlapped).toEqual([true, true])
    // One request per page: nothing asked twice.
    expect(srv.count(nodes)).toBe(PAGES)
  })

  it('a page cut short after its head: the error it always gave, at once, the page asked ahead ended', async () => {
    srv.faults.push(
      heldPages(async (n, res) => {
        if (n === 0) {
          await until(() => askedFor(1), HOLD_MS)
          res.socket?.destroy()
        } else {
          // Page 1 never ends: only an abort of it lets the command exit before --request-timeout.
          res.on('error', () => {})
        }
      }),
    )
    const started = Date.now()
    const r = await run()
    expect(r.stderr).toBe(`error: Unable to connect to the server ${srv.url}: connection reset by peer (UND_ERR_SOCKET)\n`)
    expect(r.code).toBe(6)
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it('a 410 on the continue token: the error it always gave', async () => {
    srv.faults.push(async (r, res) => {
      if (!nodes(r) || pageOf(r) !== 1) return false
      res.writeHead(410, {'content-type': 'application/json'})
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Expired',
          code: 410,
          message: 'The provided continue parameter is too old to display a consistent list result.',
        }),
      )
      return true
    })
    srv.faults.push(
      heldPages(async (_n, res, items) => {
        res.end(`${items}]}`)
      }),
    )
    const r = await run()
    expect(r.stderr).toBe('error: Error from server (Expired): The provided continue parameter is too old to display a consistent list result.\n')
    expect(r.code).toBe(6)
    expect(srv.count(nodes)).toBe(2)
  })
})

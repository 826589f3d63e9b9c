// The client layer (src/cluster/client.ts) on scripted list calls: one call per page following
// continue tokens, the page size it asks for, wire JSON out of client-node models, the request
// count of a read and errors that name what was being done.
import {describe, expect, it} from 'vitest'
import {Client, forEachPage, LIST_PAGE_SIZE, NODE, SERVICE, type ModelList, type Page} from '../../src/cluster/client.js'
import type {KubeContext} from '../../src/cluster/kubeconfig.js'
import {CliError, ExitCode} from '../../src/errors.js'

function fakeContext(): KubeContext {
  return {
    kc: {} as KubeContext['kc'],
    contextName: 'test',
    namespace: 'default',
    server: 'https://api.example:6443',
    clusterName: 'test',
    files: [],
    requestTimeoutMs: 0,
    apiOptions: {},
    stats: {requests: 0},
  }
}

/** A list call over `items`, `per` a page; counts its calls in ctx.stats like the real middleware. */
function scripted(ctx: KubeContext, items: unknown[], per: number) {
  const queries: {limit: number; _continue: string | undefined}[] = []
  const call = async (q: {limit: number; _continue: string | undefined}): Promise<ModelList> => {
    queries.push(q)
    ctx.stats.requests++
    const start = Number(q._continue ?? 0)
    const next = start + per < items.length ? String(start + per) : undefined
    return {items: items.slice(start, start + per), metadata: {resourceVersion: '7', ...(next ? {_continue: next} : {})}}
  }
  return {call, queries}
}

describe('forEachPage', () => {
  it('follows continue tokens until the last page', async () => {
    const seen: string[] = []
    const pages: Page<number>[] = [
      {items: [1, 2], resourceVersion: '1', continue: 'a'},
      {items: [3], resourceVersion: '2', continue: 'b'},
      {items: [], resourceVersion: '3'},
    ]
    let i = 0
    await forEachPage(
      async (cont) => {
        seen.push(String(cont))
        return pages[i++]!
      },
      () => {},
    )
    expect(seen).toEqual(['undefined', 'a', 'b'])
  })

  it('stops between pages when told to', async () => {
    let calls = 0
    await forEachPage(
      async () => {
        calls++
        return {items: [], resourceVersion: '1', continue: 'more'}
      },
      () => {},
      () => calls >= 2,
    )
    expect(calls).toBe(2)
  })
})

describe('Client', () => {
  it('lists page by page at LIST_PAGE_SIZE, as wire objects, and counts the requests', async () => {
    const ctx = fakeContext()
    ctx.stats.requests = 5 // sent before this read: not counted
    const c = await Client.connect(ctx)
    const items = Array.from({length: 1201}, (_, i) => ({metadata: {name: `n${i}`, creationTimestamp: new Date(Date.UTC(2026, 10, 1, 10, 0, 5))}}))
    const {call, queries} = scripted(ctx, items, LIST_PAGE_SIZE)
    const nodes = await c.list('list nodes', NODE, call)
    expect(queries.map((q) => q.limit)).toEqual([500, 500, 500])
    expect(queries.map((q) => q._continue)).toEqual([undefined, '500', '1000'])
    expect(c.requests).toBe(3)
    expect(nodes).toHaveLength(1201)
    expect(nodes[0]).toEqual({apiVersion: 'v1', kind: 'Node', metadata: {name: 'n0', creationTimestamp: '2026-11-01T10:00:05Z'}})
  })

  it('asks for pageSize items a page', async () => {
    const ctx = fakeContext()
    const c = await Client.connect(ctx, {pageSize: 2})
    const {call, queries} = scripted(ctx, [{metadata: {name: 'a'}}, {metadata: {name: 'b'}}, {metadata: {name: 'c'}}], 2)
    const page = await c.pager(SERVICE, call)(undefined)
    expect(page).toEqual({
      items: [
        {apiVersion: 'v1', kind: 'Service', metadata: {name: 'a'}},
        {apiVersion: 'v1', kind: 'Service', metadata: {name: 'b'}},
      ],
      resourceVersion: '7',
      continue: '2',
    })
    expect(queries).toEqual([{limit: 2, _continue: undefined}])
  })

  it('turns a failed page into a CliError naming what was read', async () => {
    const c = await Client.connect(fakeContext())
    const refused = Object.assign(new TypeError('fetch failed'), {cause: Object.assign(new Error('connect ECONNREFUSED'), {code: 'ECONNREFUSED'})})
    const err = await c.list('list nodes', NODE, () => Promise.reject(refused)).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).exitCode).toBe(ExitCode.UNREACHABLE)
    expect((err as CliError).message).toBe('The connection to the server https://api.example:6443 was refused - did you specify the right host or port?')
  })
})

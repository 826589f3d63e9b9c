// The reflector behind `watch`, driven by scripted list/watch functions: 410 Gone re-lists
// (as an HTTP status and as an ERROR event), a closed watch resumes from the last
// resourceVersion, failures back off with doubling delays reset by the next event.
import {describe, expect, it} from 'vitest'
import {BACKOFF, backoffDelay, describeWatchError, Reflector, type ListPage, type WatchFn} from '../../src/cluster/watch.js'
import {keepNode, withoutManagedFields} from '../../src/cluster/serve-feed.js'
import {nodeSignature} from '../../src/serve/model.js'
import type {Node} from '../../src/upstream/api/types.js'

interface Obj {
  metadata: {name: string; namespace?: string; resourceVersion?: string}
}
const obj = (name: string, rv: string): Obj => ({metadata: {name, resourceVersion: rv}})

type Step =
  | {events: [string, unknown][]; end?: unknown} // a watch that delivers events, then ends (end = error or null)
  | {fail: unknown} // the watch request fails right away
  | {refused: unknown} // the request ends before the watch call resolves (http.ts on a refused connect)

/** watchMs: how long each watch seems to last (the clock advances by it on each reading). */
function harness(lists: ListPage<Obj>[][], steps: Step[], watchMs = 0, keep?: (o: Obj) => Obj) {
  let clock = 0
  const log: string[] = []
  const sleeps: number[] = []
  let listCall = 0
  let pageInList = 0
  let stepIndex = 0
  let reflector: Reflector<Obj>
  const watch: WatchFn = async (_path, query, onEvent, done) => {
    log.push(`watch rv=${query.resourceVersion}`)
    const step = steps[stepIndex++]
    if (!step) {
      reflector.stop()
      done(null)
      return {abort() {}}
    }
    if ('refused' in step) {
      done(step.refused)
      return {abort() {}}
    }
    setTimeout(() => {
      if ('fail' in step) return done(step.fail)
      for (const [type, o] of step.events) onEvent(type, o)
      done(step.end ?? null)
    }, 0)
    return {abort() {}}
  }
  reflector = new Reflector<Obj>({
    resource: 'things',
    path: '/x',
    query: {},
    list: async (cont) => {
      const pages = lists[Math.min(listCall, lists.length - 1)]!
      const page = pages[pageInList]!
      log.push(`list page=${pageInList} cont=${cont ?? ''}`)
      if (page.continue) pageInList++
      else {
        pageInList = 0
        listCall++
      }
      return page
    },
    watch,
    onChange: (_r, type, o) => log.push(`change ${type}${o ? ` ${o.metadata.name}` : ''}`),
    onStatus: (_r, s) => log.push(`status ${s.state}${s.state === 'backoff' ? ` ${s.delayMs}` : ''}`),
    sleep: async (ms) => {
      sleeps.push(ms)
    },
    baseDelayMs: 100,
    maxDelayMs: 400,
    random: () => 0,
    now: () => (clock += watchMs),
    keep,
  })
  return {reflector, log, sleeps}
}

describe('Reflector', () => {
  it('keeps what `keep` returns of each listed and watched object, and hands that to onChange', async () => {
    const fat = (name: string, rv: string) => ({metadata: {name, resourceVersion: rv, managedFields: [{manager: 'kubelet'}]}})
    const seen: unknown[] = []
    const {reflector} = harness(
      [[{items: [fat('a', '5')], resourceVersion: '10'}]],
      [
        {
          events: [
            ['MODIFIED', fat('a', '11')],
            ['ADDED', fat('b', '12')],
          ],
        },
      ],
      0,
      (o) => {
        const x = withoutManagedFields(o)
        seen.push(x)
        return x
      },
    )
    await reflector.run()
    expect([...reflector.items.values()]).toEqual([obj('a', '11'), obj('b', '12')])
    expect(seen).toHaveLength(3)
  })

  it('lists every page, then watches from the list resourceVersion and applies events', async () => {
    const {reflector, log} = harness(
      [
        [
          {items: [obj('a', '5')], resourceVersion: '10', continue: 'c1'},
          {items: [obj('b', '6')], resourceVersion: '10'},
        ],
      ],
      [
        {
          events: [
            ['ADDED', obj('c', '11')],
            ['MODIFIED', obj('a', '12')],
            ['DELETED', obj('b', '13')],
            ['BOOKMARK', obj('', '14')],
          ],
        },
      ],
    )
    await reflector.run()
    expect([...reflector.items.keys()]).toEqual(['/a', '/c'])
    expect(log).toEqual([
      'list page=0 cont=',
      'list page=1 cont=c1',
      'status synced',
      'change LIST',
      'watch rv=10',
      'status watching',
      'change ADDED c',
      'change MODIFIED a',
      'change DELETED b',
      // the server closed the watch: resume from the bookmark's resourceVersion, no re-list
      'watch rv=14',
    ])
  })

  it('a watch that worked for 10 s or more and then broke backs off from the base again (an API server restart)', async () => {
    const closed = new Error('other side closed')
    const steps: Step[] = [
      {events: [], end: closed},
      {events: [], end: closed},
      {events: [], end: closed},
    ]
    const long = harness([[{items: [], resourceVersion: '1'}]], steps, 10_000)
    await long.reflector.run()
    expect(long.sleeps).toEqual([100, 100, 100])
    // Refused at once (no watch under way): the back-off grows.
    const short = harness([[{items: [], resourceVersion: '1'}]], steps, 0)
    await short.reflector.run()
    expect(short.sleeps).toEqual([100, 200, 400])
  })

  it('a list that works starts the back-off afresh (after an outage, a 410 and a re-list)', async () => {
    const refused = Object.assign(new Error('fetch failed'), {cause: {code: 'ECONNREFUSED'}})
    const {reflector, sleeps, log} = harness(
      [[{items: [], resourceVersion: '1'}]],
      [{fail: refused}, {fail: refused}, {fail: refused}, {fail: Object.assign(new Error('Gone'), {statusCode: 410})}, {fail: refused}],
    )
    await reflector.run()
    expect(sleeps).toEqual([100, 200, 400, 100])
    expect(reflector.lists).toBe(2)
    expect(log.filter((l) => l.startsWith('status relisting'))).toHaveLength(1)
  })

  it('a watch refused before it was under way is not reported as watching (serve would count the source up)', async () => {
    const refused = Object.assign(new Error('fetch failed'), {cause: {code: 'ECONNREFUSED'}})
    const {reflector, log} = harness([[{items: [], resourceVersion: '1'}]], [{refused}, {refused}, {events: [['BOOKMARK', obj('', '2')]]}])
    await reflector.run()
    expect(log.filter((l) => l.startsWith('status') || l.startsWith('watch'))).toEqual([
      'status synced',
      'watch rv=1',
      'status backoff 100',
      'watch rv=1',
      'status backoff 200',
      'watch rv=1',
      'status watching',
      'watch rv=2',
    ])
  })

  it('re-lists on 410 Gone as an HTTP status and as an ERROR event', async () => {
    const {reflector, log} = harness(
      [[{items: [obj('a', '1')], resourceVersion: '10'}], [{items: [obj('a', '1'), obj('z', '30')], resourceVersion: '30'}], [{items: [], resourceVersion: '40'}]],
      [{fail: Object.assign(new Error('Gone'), {statusCode: 410})}, {events: [['ERROR', {kind: 'Status', code: 410, message: 'too old resource version: 31 (35)'}]]}],
    )
    await reflector.run()
    expect(reflector.lists).toBe(3)
    expect(reflector.items.size).toBe(0)
    expect(log.filter((l) => l.startsWith('watch') || l.startsWith('status relisting') || l.startsWith('list'))).toEqual([
      'list page=0 cont=',
      'watch rv=10',
      'status relisting',
      'list page=0 cont=',
      'watch rv=30',
      'status relisting',
      'list page=0 cont=',
      'watch rv=40',
    ])
  })

  it('backs off on failures (100, 200, 400, 400 ms) and resets after an event', async () => {
    const refused = Object.assign(new Error('fetch failed'), {cause: {code: 'ECONNREFUSED'}})
    const {reflector, log, sleeps} = harness(
      [[{items: [], resourceVersion: '1'}]],
      [
        {fail: refused},
        {fail: refused},
        {fail: Object.assign(new Error('Service Unavailable'), {statusCode: 503})},
        {fail: refused},
        {events: [['ADDED', obj('a', '2')]], end: refused},
        {fail: refused},
      ],
    )
    await reflector.run()
    expect(sleeps).toEqual([100, 200, 400, 400, 100, 200])
    expect(log.filter((l) => l.startsWith('watch'))).toEqual(['watch rv=1', 'watch rv=1', 'watch rv=1', 'watch rv=1', 'watch rv=1', 'watch rv=2', 'watch rv=2'])
    expect(reflector.lists).toBe(1)
  })

  it('a client-side inactivity timeout resumes at once, without back-off', async () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    const {reflector, sleeps} = harness([[{items: [], resourceVersion: '1'}]], [{fail: timeout}, {fail: timeout}], 30_000)
    await reflector.run()
    expect(sleeps).toEqual([])
    expect(reflector.watches).toBe(3)
  })

  it('a failing first list rejects waitSynced (the command reports it) and keeps retrying with back-off', async () => {
    let calls = 0
    const sleeps: number[] = []
    const r: Reflector<Obj> = new Reflector<Obj>({
      resource: 'things',
      path: '/x',
      query: {},
      list: async () => {
        calls++
        if (calls >= 3) r.stop()
        throw Object.assign(new Error('Forbidden'), {statusCode: 403})
      },
      watch: async () => ({abort() {}}),
      onChange: () => {},
      onStatus: () => {},
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      baseDelayMs: 100,
      random: () => 0,
    })
    const synced = r.waitSynced()
    await r.run()
    await expect(synced).rejects.toThrow('Forbidden')
    expect(sleeps).toEqual([100, 200])
  })
})

// Issue 20 class 3: loops without end. Before, a watch answering 410 at once re-listed with no
// pause (4,600 requests in 10 s), a watch the server closed at once was re-opened at once, and a
// list whose continue token repeats was paged forever.
describe('Reflector: bounded retries', () => {
  const gone = {events: [['ERROR', {kind: 'Status', code: 410, message: 'too old resource version'}]] as [string, unknown][]}

  it('410 after 410 with no event in between: the first re-lists at once, then back-off doubles to its cap', async () => {
    const {reflector, sleeps, log} = harness([[{items: [], resourceVersion: '1'}]], [gone, gone, gone, gone, gone])
    await reflector.run()
    expect(sleeps).toEqual([100, 200, 400, 400])
    expect(reflector.lists).toBe(6)
    expect(log.filter((l) => l.startsWith('status backoff'))).toHaveLength(4)
  })

  it('an event resets the 410 count', async () => {
    const ev = {
      events: [
        ['ADDED', obj('a', '2')],
        ['ERROR', {code: 410}],
      ] as [string, unknown][],
    }
    const {reflector, sleeps} = harness([[{items: [], resourceVersion: '1'}]], [gone, ev, gone, ev])
    await reflector.run()
    expect(sleeps).toEqual([100])
  })

  it('a watch the server ends at once without an event ("very short watch") backs off', async () => {
    const {reflector, sleeps, log} = harness([[{items: [], resourceVersion: '1'}]], [{events: []}, {events: []}, {events: []}])
    await reflector.run()
    expect(sleeps).toEqual([100, 200, 400])
    expect(log).toContain('status backoff 100')
  })

  it('a list whose continue token repeats stops paging and backs off with a one-line reason', async () => {
    const statuses: string[] = []
    let lists = 0
    const r: Reflector<Obj> = new Reflector<Obj>({
      resource: 'things',
      path: '/x',
      query: {},
      list: async () => {
        if (++lists > 20) r.stop()
        return {items: [], resourceVersion: '1', continue: 'same'}
      },
      watch: async () => ({abort() {}}),
      onChange: () => {},
      onStatus: (_r, s) => statuses.push(s.state === 'backoff' ? s.error : s.state),
      sleep: async () => {},
      random: () => 0,
    })
    const synced = r.waitSynced().catch((e: Error) => e.message)
    await r.run()
    expect(await synced).toBe(
      'list things: page 2 came with the continue token "same" of an earlier page; the API server\'s list does not end (stopped paging): check the server, or the proxy in front of it',
    )
    expect(lists).toBe(21) // two requests per attempt, not thousands
    expect(statuses[0]).toMatch(/^list things: page 2 came with/)
  })
})

describe('backoffDelay (wait.Backoff with jitter 1.0)', () => {
  it('doubles from the base to the cap; the jitter adds up to the delay again', () => {
    expect([0, 1, 2, 5, 6, 7, 60].map((n) => backoffDelay(n, 800, 30_000, 0))).toEqual([800, 1600, 3200, 25_600, 30_000, 30_000, 30_000])
    expect(backoffDelay(0, 800, 30_000, 0.5)).toBe(1200)
    expect(backoffDelay(9, 800, 30_000, 0.999)).toBe(59_970)
  })
  it("defaults are client-go's reflector's", () => {
    expect(BACKOFF).toEqual({baseMs: 800, maxMs: 30_000, factor: 2, jitter: 1})
  })
})

describe('describeWatchError: the reconnect line', () => {
  it('says what a 401 means and what happens next, once, and never repeats "HTTP 401"', () => {
    expect(describeWatchError(Object.assign(new Error('HTTP 401'), {statusCode: 401}))).toBe(
      'HTTP 401 Unauthorized: the API server refused the credentials (an expired or revoked token?); each retry picks up a rotated tokenFile or exec credential',
    )
    expect(describeWatchError(Object.assign(new Error('HTTP 403'), {statusCode: 403}))).toBe('HTTP 403 Forbidden')
    expect(describeWatchError(Object.assign(new Error('too old resource version: 1 (2)'), {statusCode: 410}))).toBe('HTTP 410 too old resource version: 1 (2)')
    expect(describeWatchError(Object.assign(new Error('services is forbidden: User "x" cannot watch'), {statusCode: 403}))).toBe(
      'HTTP 403 Forbidden: services is forbidden: User "x" cannot watch',
    )
    expect(describeWatchError(Object.assign(new Error('fetch failed'), {cause: {code: 'ECONNREFUSED'}}))).toBe('ECONNREFUSED')
  })
})

describe("serve's caches keep what the engine reads", () => {
  it('a Node: labels, spec, allocatable, capacity, addresses, condition type/status/reason; not images, nodeInfo, heartbeats, managedFields', () => {
    const n = {
      metadata: {name: 'n1', labels: {'topology.kubernetes.io/zone': 'zone-a'}, managedFields: [{manager: 'kubelet'}]},
      spec: {podCIDR: '10.0.0.0/24'},
      status: {
        allocatable: {cpu: '4'},
        capacity: {cpu: '4'},
        addresses: [{type: 'InternalIP', address: '10.1.2.3'}],
        conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: '2026-11-28T09:00:00Z'}],
        images: [{names: ['registry.example/app:1'], sizeBytes: 123456789}],
        nodeInfo: {kubeletVersion: 'v1.36.3'},
      },
    } as unknown as Node
    expect(keepNode(n)).toEqual({
      metadata: {name: 'n1', labels: {'topology.kubernetes.io/zone': 'zone-a'}},
      spec: {podCIDR: '10.0.0.0/24'},
      status: {
        allocatable: {cpu: '4'},
        capacity: {cpu: '4'},
        addresses: [{type: 'InternalIP', address: '10.1.2.3'}],
        conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady'}],
      },
    })
    // serve's Node change filter reads the same of both.
    expect(nodeSignature(keepNode(n))).toBe(nodeSignature(n))
  })
})

// kubectl topology reset against the real control plane: it restores what apply changed,
// from apply's journal, with the same safety rules as apply. (Reset after a partial failure
// and after SIGINT is in apply.test.ts, next to the failure it undoes.)
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {ApiProxy, runCliAsync} from './apiproxy.js'
import {comparable, getService, getSlice, getSlices, journalFiles, mergePatch, serviceWithOwnSlices, serviceWithPods, setupNodes, stateHome} from './apply-helpers.js'
import {cluster, createNamespace} from './fixtures.js'

let proxy: ApiProxy
let home: string
const run = (args: string[], context = 'admin') => runCliAsync([...args, '--context', context], {env: {KUBECONFIG: proxy.kubeconfig, XDG_STATE_HOME: home}})

beforeAll(async () => {
  await setupNodes()
  proxy = await ApiProxy.start()
})
afterAll(async () => {
  await proxy?.close()
})
beforeEach(() => {
  proxy.reset()
  home = stateHome()
})

describe('reset', () => {
  it('previews by default; --yes restores the whole object; the journal is then gone and a second reset has nothing to do', async () => {
    const ns = await createNamespace('reset-basic')
    await serviceWithPods(ns, 'web', 21, {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
    const before = await getService(ns, 'web')
    expect((await run(['apply', 'svc/web', '-n', ns, '--mode', 'none', '--yes'])).code).toBe(0)
    const applied = await getService(ns, 'web')
    expect(applied.metadata.annotations).toBeUndefined()
    const [file] = journalFiles(home)
    expect(file).toContain(`/kubectl-topology/journal/`)
    expect(file).toMatch(new RegExp(`/${ns}/web\\.json$`))

    proxy.reset()
    const preview = await run(['reset', 'svc/web', '-n', ns])
    expect(preview.code).toBe(0)
    expect(preview.stdout).toContain('+ metadata.annotations[service.kubernetes.io/topology-mode]: <unset> -> "Auto"   (value before apply)')
    expect(preview.stdout).toContain('Preview only: nothing was written. Run again with --yes to restore.')
    expect(proxy.writes()).toEqual([])
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(applied))

    proxy.reset()
    const r = await run(['reset', 'svc/web', '-n', ns, '--yes'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Restored: service/web.')
    expect(proxy.writes().map((w) => [w.method, w.contentType])).toEqual([['PATCH', 'application/merge-patch+json']])
    expect(JSON.parse(proxy.writes()[0]!.body).metadata.resourceVersion).toBe(applied.metadata.resourceVersion)
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    expect(journalFiles(home)).toEqual([])

    const again = await run(['reset', 'svc/web', '-n', ns, '--yes'])
    expect(again.code).toBe(4)
    expect(again.stderr).toMatch(/^error: nothing to reset: kubectl topology apply has no record of changes to service /)
  })

  it('leaves a value someone else changed since apply (and says so); reset --force restores it', async () => {
    const ns = await createNamespace('reset-foreign')
    const names = await serviceWithOwnSlices(ns, 'db')
    const before = await getSlices(ns, names)
    expect((await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'])).code).toBe(0)
    // Someone else rewrites the hints of one endpoint.
    await cluster().discovery.patchNamespacedEndpointSlice({
      name: names[2]!,
      namespace: ns,
      body: [{op: 'replace', path: '/endpoints/0/hints', value: {forZones: [{name: 'zone-a'}]}}],
    })
    const r = await run(['reset', 'svc/db', '-n', ns, '--yes'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(
      `Warning: left as is: EndpointSlice ${names[2]}: endpoint 10.200.2.1 has hints zones=zone-a, changed by someone else since apply wrote zones=zone-c; left as is (reset --force restores <none>)`,
    )
    expect(r.stdout).toContain(`Left as is: endpointslice/${names[2]} (reset --force restores them).`)
    expect(comparable(await getSlice(ns, names[0]!))).toEqual(comparable(before[0]!))
    expect((await getSlice(ns, names[2]!)).endpoints![0]!.hints).toEqual({forZones: [{name: 'zone-a'}]})
    expect(journalFiles(home)).toHaveLength(1)
    const forced = await run(['reset', 'svc/db', '-n', ns, '--yes', '--force'])
    expect(forced.stderr).toBe('')
    expect(forced.code).toBe(0)
    for (const [i, n] of names.entries()) expect(comparable(await getSlice(ns, n))).toEqual(comparable(before[i]!))
    expect(journalFiles(home)).toEqual([])
  })

  it('optimistic concurrency: a concurrent write during reset is kept, reset re-reads and retries', async () => {
    const ns = await createNamespace('reset-race')
    await serviceWithPods(ns, 'web', 22)
    const before = await getService(ns, 'web')
    expect((await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameNode', '--yes'])).code).toBe(0)
    let raced = false
    proxy.reset()
    proxy.hook = async (q) => {
      if (!raced && q.method === 'PATCH') {
        raced = true
        await cluster().core.patchNamespacedService({name: 'web', namespace: ns, body: {metadata: {labels: {concurrent: 'writer'}}}}, mergePatch)
      }
    }
    const r = await run(['reset', 'svc/web', '-n', ns, '--yes'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('Conflict: service/web was modified since it was read; re-reading and re-planning (retry 1 of 3)')
    expect(proxy.writes().map((w) => w.status)).toEqual([409, 200])
    const after = await getService(ns, 'web')
    expect(after.metadata.labels).toEqual({concurrent: 'writer'})
    const want = comparable(before)
    want.metadata.labels = {concurrent: 'writer'}
    expect(comparable(after)).toEqual(want)
  })

  it('the read-only identity: one line naming the missing permission, exit 7, nothing written; --dry-run=server stores nothing and keeps the journal', async () => {
    const ns = await createNamespace('reset-ro')
    await serviceWithPods(ns, 'web', 23)
    expect((await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes'])).code).toBe(0)
    const applied = await getService(ns, 'web')
    proxy.reset()
    const ro = await run(['reset', 'svc/web', '-n', ns, '--yes'], 'readonly')
    expect(ro.code).toBe(7)
    expect(ro.stderr.trim()).toMatch(
      /^error: forbidden: context "readonly" \(user "readonly"\) lacks permission "patch services" in namespace "[^"]+", needed to restore service web; nothing was written$/,
    )
    expect(proxy.writes()).toEqual([])
    proxy.reset()
    const dry = await run(['reset', 'svc/web', '-n', ns, '--dry-run=server'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain('Dry run (server): the API server accepted 1 write(s) (service/web); nothing was stored.')
    expect(proxy.writes()[0]!.url).toContain('dryRun=All')
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(applied))
    expect(journalFiles(home)).toHaveLength(1)
  })
})

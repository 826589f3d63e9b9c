// kubectl topology apply against the real control plane: every safety rule of issue 4.
// The CLI runs as a child process and talks to the API server through a recording proxy
// (apiproxy.ts), which counts requests and lets a test act at the moment a write arrives.
import {Ajv2020 as Ajv} from 'ajv/dist/2020.js'
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {BIN} from '../cli/run-cli.js'
import {ApiProxy, runCliAsync} from './apiproxy.js'
import {
  comparable,
  getService,
  getSlice,
  getSlices,
  IMPORTER,
  journalFiles,
  mergePatch,
  serviceWithOwnSlices,
  serviceWithPods,
  setupNodes,
  sleep,
  stateHome,
  withoutHints,
} from './apply-helpers.js'
import {cluster, createNamespace} from './fixtures.js'

let proxy: ApiProxy
let home: string

const run = (args: string[], opts: {context?: string; onStart?: (pid: number) => void} = {}) =>
  runCliAsync([...args, '--context', opts.context ?? 'admin'], {env: {KUBECONFIG: proxy.kubeconfig, XDG_STATE_HOME: home}, ...(opts.onStart ? {onStart: opts.onStart} : {})})

const hintsOf = (s: {endpoints?: {addresses: string[]; hints?: unknown}[] | null}) => (s.endpoints ?? []).map((e) => [e.addresses[0], e.hints ?? null])

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

describe('apply --mode (Service mode)', () => {
  it('previews by default: diff and predicted outcome, nothing written, says how to write', async () => {
    const ns = await createNamespace('apply-preview')
    await serviceWithPods(ns, 'web', 1)
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('+ spec.trafficDistribution: <unset> -> "PreferSameZone"')
    expect(r.stdout).toContain('Predicted outcome')
    expect(r.stdout).toMatch(/zone-a\s+2\s+0\s/) // NODES, IGNORED
    expect(r.stdout).toContain('Preview only: nothing was written. Run again with --yes')
    expect(proxy.writes()).toEqual([])
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    expect(journalFiles(home)).toEqual([])
  })

  it('on a terminal, apply asks y/N first: "n" writes nothing, "y" writes', async () => {
    const ns = await createNamespace('apply-tty')
    await serviceWithPods(ns, 'web', 12)
    const before = await getService(ns, 'web')
    // util-linux script(1) gives the CLI a pseudo-terminal; the answer is typed after the prompt.
    const onTty = (answer: string) =>
      new Promise<{out: string; code: number | null}>((resolve) => {
        const cmd = [process.execPath, BIN, 'apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--context', 'admin', '--color', 'never'].map((a) => `'${a}'`).join(' ')
        const child = spawn('script', ['-qec', cmd, '/dev/null'], {env: {...process.env, KUBECONFIG: proxy.kubeconfig, XDG_STATE_HOME: home}, stdio: ['pipe', 'pipe', 'pipe']})
        let out = ''
        let answered = false
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          if (!answered && out.includes('[y/N]')) {
            answered = true
            child.stdin.write(`${answer}\n`)
          }
        })
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
        child.on('close', (code) => {
          clearTimeout(timer)
          resolve({out, code})
        })
      })
    const no = await onTty('n')
    expect(no.out).toContain(`Apply these changes to service ${ns}/web? [y/N]`)
    expect(no.out).toContain('Nothing was written.')
    expect(no.code).toBe(0)
    expect(proxy.writes()).toEqual([])
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    const yes = await onTty('y')
    expect(yes.out).toContain('Applied: service/web.')
    expect(yes.code).toBe(0)
    expect((await getService(ns, 'web')).spec?.trafficDistribution).toBe('PreferSameZone')
  })

  it('--yes writes with server-side apply (field manager kubectl-topology), only the asked field changes, --wait sees the predicted hints, a second apply changes nothing, reset restores the whole object', async () => {
    const ns = await createNamespace('apply-sza')
    await serviceWithPods(ns, 'web', 2)
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes', '--wait', '--timeout', '60s'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Applied: service/web.')
    expect(r.stdout).toContain('The controller wrote the predicted hints')
    const writes = proxy.writes()
    expect(writes).toHaveLength(1)
    expect(writes[0]!.method).toBe('PATCH')
    expect(writes[0]!.contentType).toBe('application/apply-patch+yaml')
    expect(writes[0]!.url).toContain('fieldManager=kubectl-topology')
    expect(writes[0]!.url).not.toContain('force=')
    expect(JSON.parse(writes[0]!.body).metadata.resourceVersion).toBe(before.metadata.resourceVersion)
    // SelfSubjectAccessReview before the write.
    const ssar = proxy.requests.findIndex((q) => q.url.includes('selfsubjectaccessreviews'))
    expect(ssar).toBeGreaterThanOrEqual(0)
    expect(ssar).toBeLessThan(proxy.requests.indexOf(writes[0]!))

    const after = await getService(ns, 'web')
    const expected = comparable(before)
    expected.spec = {...expected.spec, trafficDistribution: 'PreferSameZone'}
    expect(comparable(after)).toEqual(expected)
    const slices = await cluster().listEndpointSlices(ns, 'web')
    for (const s of slices) for (const e of s.endpoints ?? []) expect(e.hints?.forZones).toEqual([{name: e.zone}])
    expect(journalFiles(home)).toHaveLength(1)

    // Idempotent: "no changes" and zero write requests (not even a permission check).
    proxy.reset()
    const again = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes'])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('No changes')
    expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([])

    // Undo: the whole object is as it was.
    proxy.reset()
    const undo = await run(['reset', 'svc/web', '-n', ns, '--yes'])
    expect(undo.stderr).toBe('')
    expect(undo.code).toBe(0)
    expect(undo.stdout).toContain('- spec.trafficDistribution: "PreferSameZone" -> <unset>')
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    expect(journalFiles(home)).toEqual([])
  })

  it('--mode PreferSameZone removes a topology-mode Auto annotation another manager set (it would override), and --mode Auto removes the deprecated annotation; reset restores both', async () => {
    const ns = await createNamespace('apply-ann')
    await serviceWithPods(ns, 'web', 3, {annotations: {'service.kubernetes.io/topology-mode': 'Auto', 'example.com/keep': 'yes'}})
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes', '--wait', '--timeout', '60s'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('- metadata.annotations[service.kubernetes.io/topology-mode]: "Auto" -> <unset>')
    const writes = proxy.writes()
    expect(writes.map((w) => w.contentType)).toEqual(['application/apply-patch+yaml', 'application/merge-patch+json'])
    const after = await getService(ns, 'web')
    const expected = comparable(before)
    expected.metadata.annotations = {'example.com/keep': 'yes'}
    expected.spec = {...expected.spec, trafficDistribution: 'PreferSameZone'}
    expect(comparable(after)).toEqual(expected)

    proxy.reset()
    const undo = await run(['reset', 'svc/web', '-n', ns, '--yes'])
    expect(undo.stderr).toBe('')
    expect(undo.code).toBe(0)
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))

    // The deprecated annotation, present, wins over topology-mode whatever its value: --mode
    // Auto replaces it (one merge patch: the API server refuses the two with different values).
    await serviceWithPods(ns, 'web2', 13, {annotations: {'service.kubernetes.io/topology-aware-hints': 'disabled'}})
    const before2 = await getService(ns, 'web2')
    proxy.reset()
    const auto = await run(['apply', 'svc/web2', '-n', ns, '--mode', 'Auto', '--yes', '--wait', '--timeout', '60s'])
    expect(auto.stderr).toBe('')
    expect(auto.code).toBe(0)
    expect(auto.stdout).toContain('- metadata.annotations[service.kubernetes.io/topology-aware-hints]: "disabled" -> <unset>')
    expect(auto.stdout).toContain('+ metadata.annotations[service.kubernetes.io/topology-mode]: <unset> -> "Auto"')
    expect(auto.stdout).toContain('compared per zone')
    expect(proxy.writes().map((w) => w.contentType)).toEqual(['application/merge-patch+json'])
    const expected2 = comparable(before2)
    expected2.metadata.annotations = {'service.kubernetes.io/topology-mode': 'Auto'}
    expect(comparable(await getService(ns, 'web2'))).toEqual(expected2)
    const undo2 = await run(['reset', 'svc/web2', '-n', ns, '--yes'])
    expect(undo2.stderr).toBe('')
    expect(undo2.code).toBe(0)
    expect(comparable(await getService(ns, 'web2'))).toEqual(comparable(before2))
  })

  it('a field set to another value by another field manager is a server-side apply conflict: exit 8 naming the field and --force-conflicts; --force-conflicts takes it over', async () => {
    const ns = await createNamespace('apply-conflict')
    await serviceWithPods(ns, 'web', 4, {trafficDistribution: 'PreferClose'})
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameNode', '--yes'])
    expect(r.code).toBe(8)
    expect(r.stderr.trim().split('\n')[0]).toMatch(
      /^error: server-side apply conflict on services "web": \.spec\.trafficDistribution \(conflict with "kubernetes-client-javascript".*--force-conflicts/,
    )
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    proxy.reset()
    const forced = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameNode', '--yes', '--force-conflicts'])
    expect(forced.stderr).toBe('')
    expect(forced.code).toBe(0)
    expect(proxy.writes()[0]!.url).toContain('force=true')
    expect((await getService(ns, 'web')).spec?.trafficDistribution).toBe('PreferSameNode')
  })

  it('--dry-run=server: the API server admits the write, nothing is stored; -o json follows schema/apply.v1.json; --exit-code returns 1', async () => {
    const ns = await createNamespace('apply-dry')
    await serviceWithPods(ns, 'web', 5)
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--dry-run=server', '-o', 'json', '--exit-code'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const doc = JSON.parse(r.stdout)
    const ajv = new Ajv({allErrors: true, strict: false})
    const validate = ajv.compile(JSON.parse(fs.readFileSync(new URL('../../schema/apply.v1.json', import.meta.url), 'utf8')))
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
    expect(doc.result.status).toBe('dry-run')
    expect(doc.changed).toBe(true)
    expect(doc.changes.service).toEqual([expect.objectContaining({path: 'spec.trafficDistribution', old: null, new: 'PreferSameZone'})])
    expect(doc.prediction[0].path).toBe('traffic-distribution')
    expect(proxy.writes()).toHaveLength(1)
    expect(proxy.writes()[0]!.url).toContain('dryRun=All')
    expect(proxy.writes()[0]!.status).toBe(200)
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    expect(journalFiles(home)).toEqual([])

    // --dry-run=client sends nothing at all but reads.
    proxy.reset()
    const c = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--dry-run=client'])
    expect(c.code).toBe(0)
    expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })

  it('the read-only identity gets one line naming the missing permission, exit 7, and nothing is written', async () => {
    const ns = await createNamespace('apply-ro')
    await serviceWithPods(ns, 'web', 6)
    const before = await getService(ns, 'web')
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes'], {context: 'readonly'})
    expect(r.code).toBe(7)
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('error:'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('lacks permission "patch services"')
    expect(lines[0]).toContain('nothing was written')
    expect(proxy.writes()).toEqual([])
    expect(comparable(await getService(ns, 'web'))).toEqual(comparable(before))
    expect(journalFiles(home)).toEqual([])
  })

  it('optimistic concurrency: a concurrent writer changes the Service between read and write; apply re-reads, shows the new plan, retries, and both changes survive', async () => {
    const ns = await createNamespace('apply-race')
    await serviceWithPods(ns, 'web', 7)
    let raced = false
    proxy.hook = async (q) => {
      if (!raced && q.method === 'PATCH' && q.url.includes('/services/web')) {
        raced = true
        await cluster().core.patchNamespacedService({name: 'web', namespace: ns, body: {metadata: {labels: {concurrent: 'writer'}}}}, mergePatch)
      }
    }
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('Conflict: service/web was modified since it was read; re-reading and re-planning (retry 1 of 3)')
    expect(r.stdout).toContain('New plan after re-reading:')
    const patches = proxy.writes().filter((w) => w.url.includes('/services/web'))
    expect(patches.map((p) => p.status)).toEqual([409, 200])
    const after = await getService(ns, 'web')
    expect(after.metadata.labels).toEqual({concurrent: 'writer'})
    expect(after.spec?.trafficDistribution).toBe('PreferSameZone')
  })

  it('--wait exits 1 with the difference when the controller does not write the predicted hints', async () => {
    const ns = await createNamespace('apply-wait')
    await serviceWithPods(ns, 'web', 8)
    // Predicting as 1.30 (no trafficDistribution) while the 1.36 controller writes zone hints.
    // At 1.30 apply refuses the mode (the API server would drop it) unless --force-value.
    const refused = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes', '--kube-version', '1.30'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^error: at Kubernetes 1\.30 the API server drops spec\.trafficDistribution/)
    expect((await getService(ns, 'web')).spec?.trafficDistribution).toBeUndefined()
    const r = await run(['apply', 'svc/web', '-n', ns, '--mode', 'PreferSameZone', '--yes', '--force-value', '--wait', '--timeout', '20s', '--kube-version', '1.30'])
    expect(r.stderr).toContain('Warning: --force-value: at Kubernetes 1.30 the API server drops spec.trafficDistribution')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('The live hints differ from the prediction')
    expect(r.stderr).toMatch(/10\.108\.0\.10\s+<none>\s+zones=zone-a/)
  })
})

describe('apply --hints (hints mode)', () => {
  it('writes hints onto EndpointSlices managed by someone else, only the hints change, they stay, a second apply writes nothing, reset restores the whole objects', async () => {
    const ns = await createNamespace('hints')
    const names = await serviceWithOwnSlices(ns, 'db')
    const before = await getSlices(ns, names)
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--strategy', 'PreferSameZone', '--yes'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/~ 10\.200\.0\.1\s+zone-a-node-1\s+zone-a\s+ready\s+<none> -> zones=zone-a/)
    const writes = proxy.writes()
    expect(writes).toHaveLength(3)
    for (const w of writes) {
      expect(w.contentType).toBe('application/json-patch+json')
      const ops = JSON.parse(w.body)
      expect(ops[0]).toEqual({op: 'replace', path: '/metadata/resourceVersion', value: expect.any(String)})
      expect(ops.slice(1).every((o: {path: string}) => /^\/endpoints\/\d+\/hints$/.test(o.path))).toBe(true)
    }
    await sleep(1500) // the controller is running: it leaves these slices alone
    const after = await getSlices(ns, names)
    after.forEach((s, i) => {
      expect(comparable(withoutHints(s))).toEqual(comparable(before[i]!))
      for (const e of s.endpoints ?? []) expect(e.hints).toEqual({forZones: [{name: e.zone}]})
    })

    proxy.reset()
    const again = await run(['apply', 'svc/db', '-n', ns, '--hints', '--strategy', 'PreferSameZone', '--yes'])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('No changes')
    expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([])

    proxy.reset()
    const undo = await run(['reset', 'svc/db', '-n', ns, '--yes'])
    expect(undo.stderr).toBe('')
    expect(undo.code).toBe(0)
    const restored = await getSlices(ns, names)
    restored.forEach((s, i) => expect(comparable(s)).toEqual(comparable(before[i]!)))
  })

  it('refuses controller-managed EndpointSlices with the explanation and the Service-mode command; --force writes them and says they last until the next sync', async () => {
    const ns = await createNamespace('hints-managed')
    await serviceWithPods(ns, 'web', 9)
    const r = await run(['apply', 'svc/web', '-n', ns, '--hints', '--strategy', 'PreferSameZone', '--yes'])
    expect(r.code).toBe(2)
    const line = r.stderr.trim()
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toContain('managed by the EndpointSlice controller (endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io)')
    expect(line).toContain(`kubectl topology apply svc/web -n ${ns} --mode PreferSameZone`)
    expect(proxy.writes()).toEqual([])
    proxy.reset()
    const forced = await run(['apply', 'svc/web', '-n', ns, '--hints', '--strategy', 'PreferSameZone', '--yes', '--force'])
    expect(forced.code).toBe(0)
    expect(forced.stderr).toContain("last only until the EndpointSlice controller's next sync")
    expect(proxy.writes().map((w) => w.status)).toEqual([200])
  })

  it('optimistic concurrency on slices: a concurrent writer changes an endpoint; apply re-reads, re-plans (that endpoint gets no hint) and no update is lost', async () => {
    const ns = await createNamespace('hints-race')
    const names = await serviceWithOwnSlices(ns, 'db')
    let raced = false
    proxy.hook = async (q) => {
      if (!raced && q.method === 'PATCH' && q.url.includes(`/endpointslices/${names[1]}`)) {
        raced = true
        const s = await getSlice(ns, names[1]!)
        s.endpoints![1]!.conditions = {ready: false, serving: false, terminating: true}
        s.metadata.labels = {...s.metadata.labels, concurrent: 'writer'}
        await cluster().discovery.replaceNamespacedEndpointSlice({name: names[1]!, namespace: ns, body: s as never})
      }
    }
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(`Conflict: endpointslice/${names[1]} was modified since it was read`)
    expect(r.stdout).toContain('New plan after re-reading:')
    const s = await getSlice(ns, names[1]!)
    expect(s.metadata.labels?.concurrent).toBe('writer')
    expect(s.endpoints![1]!.conditions).toEqual({ready: false, serving: false, terminating: true})
    expect(hintsOf(s)).toEqual([
      ['10.200.1.1', {forZones: [{name: 'zone-b'}]}],
      ['10.200.1.2', null],
    ])
    for (const n of [names[0]!, names[2]!]) for (const e of (await getSlice(ns, n)).endpoints ?? []) expect(e.hints).toEqual({forZones: [{name: e.zone}]})
  })

  it('partial failure (a slice deleted between plan and write): reports which were written, each slice old or new, exit 8; reset restores', async () => {
    const ns = await createNamespace('hints-partial')
    const names = await serviceWithOwnSlices(ns, 'db')
    const before = await getSlices(ns, names)
    proxy.hook = async (q) => {
      if (q.method === 'PATCH' && q.url.includes(`/endpointslices/${names[1]}`)) await cluster().discovery.deleteNamespacedEndpointSlice({name: names[1]!, namespace: ns})
    }
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'])
    expect(r.code).toBe(8)
    expect(r.stderr).toContain(`error: endpointslices.discovery.k8s.io "${names[1]}" not found in namespace "${ns}": it was deleted since it was read`)
    expect(r.stderr).toContain(`written: endpointslice/${names[0]}; failed: endpointslice/${names[1]}; not written: endpointslice/${names[2]}`)
    const a = await getSlice(ns, names[0]!)
    expect(hintsOf(a).every(([, h]) => h !== null)).toBe(true)
    expect(comparable(await getSlice(ns, names[2]!))).toEqual(comparable(before[2]!))
    proxy.hook = undefined
    const undo = await run(['reset', 'svc/db', '-n', ns, '--yes'])
    expect(undo.stderr).toBe('')
    expect(undo.code).toBe(0)
    expect(undo.stdout).toContain(`Restored: endpointslice/${names[0]}.`)
    expect(comparable(await getSlice(ns, names[0]!))).toEqual(comparable(before[0]!))
    expect(journalFiles(home)).toEqual([])
  })

  it('partial failure (the API server rejects a value): one line with the field path; reset restores', async () => {
    const ns = await createNamespace('hints-reject')
    const names = await serviceWithOwnSlices(ns, 'db')
    const before = await getSlices(ns, names)
    proxy.hook = (q) => {
      if (q.method === 'PATCH' && q.url.includes(`/endpointslices/${names[1]}`)) return {body: q.body.replace('"zone-b"', '"inv@lid"')}
    }
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'])
    expect(r.code).toBe(8)
    const first = r.stderr.split('\n')[0]!
    expect(first).toMatch(
      /^error: the API server rejected the write to endpointslices\.discovery\.k8s\.io "db-zone-b" \(Invalid\): endpoints\[0\]\.hints\.forZones\[0\]\.name: Invalid value: "inv@lid"/,
    )
    expect(r.stderr).toContain(`written: endpointslice/${names[0]}; failed: endpointslice/${names[1]}; not written: endpointslice/${names[2]}`)
    expect(comparable(await getSlice(ns, names[1]!))).toEqual(comparable(before[1]!))
    proxy.hook = undefined
    const undo = await run(['reset', 'svc/db', '-n', ns, '--yes'])
    expect(undo.code).toBe(0)
    for (const [i, n] of names.entries()) expect(comparable(await getSlice(ns, n))).toEqual(comparable(before[i]!))
  })

  it('validation before sending: an invalid planned hint (zone "bad zone!") is refused with its field path and nothing is sent', async () => {
    const ns = await createNamespace('hints-invalid')
    await serviceWithOwnSlices(ns, 'db', {zoneOverride: 'bad zone!'})
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'])
    expect(r.code).toBe(8)
    expect(r.stderr.trim()).toMatch(
      /^error: the planned hints for EndpointSlice db-zone-b are not valid, so nothing was sent: endpoints\[0\]\.hints\.forZones\[0\]\.name: Invalid value: "bad zone!"/,
    )
    expect(proxy.requests.filter((q) => q.method !== 'GET')).toEqual([])
  })

  it('SIGINT between writes: the write in flight completes, the next is not sent, what was done is printed, exit 130; reset restores', async () => {
    const ns = await createNamespace('hints-sigint')
    const names = await serviceWithOwnSlices(ns, 'db')
    const before = await getSlices(ns, names)
    let pid = 0
    proxy.hook = (q) => {
      if (q.method === 'PATCH' && q.url.includes(`/endpointslices/${names[0]}`)) {
        process.kill(pid, 'SIGINT') // arrives while the first write is in flight
        return {delayResponseMs: 500}
      }
    }
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'], {onStart: (p) => (pid = p)})
    expect(r.code, r.stderr).toBe(130)
    expect(r.stderr).toContain('SIGINT received: stopping before the next write')
    expect(r.stdout).toContain(`Interrupted by SIGINT: written: endpointslice/${names[0]}; not written: endpointslice/${names[1]}, endpointslice/${names[2]}`)
    expect(proxy.writes()).toHaveLength(1)
    expect(hintsOf(await getSlice(ns, names[0]!)).every(([, h]) => h !== null)).toBe(true)
    for (const i of [1, 2]) expect(comparable(await getSlice(ns, names[i]!))).toEqual(comparable(before[i]!))
    proxy.hook = undefined
    const undo = await run(['reset', 'svc/db', '-n', ns, '--yes'])
    expect(undo.code).toBe(0)
    for (const [i, n] of names.entries()) expect(comparable(await getSlice(ns, n))).toEqual(comparable(before[i]!))
  })

  it('the read-only identity cannot write hints: one line, exit 7, nothing written', async () => {
    const ns = await createNamespace('hints-ro')
    await serviceWithOwnSlices(ns, 'db')
    const r = await run(['apply', 'svc/db', '-n', ns, '--hints', '--yes'], {context: 'readonly'})
    expect(r.code).toBe(7)
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/^error: forbidden: context "readonly" \(user "readonly"\) lacks permission "patch endpointslices\.discovery\.k8s\.io"/)
    expect(proxy.writes()).toEqual([])
  })

  it('--from-file is a preview only: --yes is refused', async () => {
    const r = await runCliAsync(['apply', 'svc/db', '--hints', '--yes', '--from-file', 'examples/three-zones.yaml'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe('error: --from-file reads a snapshot, so apply can only preview (--dry-run=client); --yes needs a live cluster: drop --from-file')
    void IMPORTER
  })
})

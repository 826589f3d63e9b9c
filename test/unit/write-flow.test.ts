// commands/write-flow.ts's write loop, and apply's and reset's flows end to end with fake
// effects (WriteDeps, CommandIO): what is printed, written and journaled, in which order.
import {describe, expect, it} from 'vitest'
import {planServiceMode} from '../../src/apply/plan.js'
import {emptyJournal, type Journal} from '../../src/apply/undo.js'
import {writesFor, type WriteTarget} from '../../src/apply/writes.js'
import {ConflictError, type Writer} from '../../src/cluster/write.js'
import type {KubeContext} from '../../src/cluster/kubeconfig.js'
import {CliError} from '../../src/errors.js'
import {runApply, type ApplyOptions} from '../../src/commands/apply-flow.js'
import {runReset, type ResetOptions} from '../../src/commands/reset-flow.js'
import {executeWrites, Interrupts, type Target, type WriteDeps} from '../../src/commands/write-flow.js'
import {PLAIN} from '../../src/render/style.js'
import type {EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'

const TM = 'service.kubernetes.io/topology-mode'
const svc = (annotations?: Record<string, string>, rv = '42'): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {name: 'web', namespace: 'shop', resourceVersion: rv, uid: 'u1', ...(annotations ? {annotations} : {})},
  spec: {selector: {app: 'web'}, ports: [{port: 80}]},
})
const node = (name: string, zone: string): Node => ({
  metadata: {name, labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const slice: EndpointSlice = {
  metadata: {
    name: 'web-1',
    namespace: 'shop',
    resourceVersion: '7',
    labels: {'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
  },
  addressType: 'IPv4',
  endpoints: [
    {addresses: ['10.0.0.1'], conditions: {ready: true}, zone: 'zone-a', nodeName: 'a'},
    {addresses: ['10.0.0.2'], conditions: {ready: true}, zone: 'zone-b', nodeName: 'b'},
  ],
}
const ctx = {server: 'https://k8s.example:6443', contextName: 'kind', namespace: 'shop'} as KubeContext

/** A fake Writer: records requests; `conflicts` Service writes fail with a conflict first. */
function fakeWriter(o: {service?: Service; conflicts?: number; fail?: Error} = {}) {
  const calls: string[] = []
  let conflicts = o.conflicts ?? 0
  const writer = {
    serverDryRun: false,
    serviceManagedFields: async () => [],
    getService: async () => o.service ?? svc(),
    listSlices: async () => [slice],
    checkAccess: async (checks: {verb: string; resource: string}[]) => void calls.push(`access ${checks.map((c) => `${c.verb} ${c.resource}`).join(',')}`),
    applyService: async (name: string) => {
      if (o.fail) throw o.fail
      if (conflicts-- > 0) throw new ConflictError('Service', name)
      calls.push(`apply ${name}`)
      return svc({[TM]: 'Auto'}, '43')
    },
    mergePatchService: async (name: string, patch: unknown) => (calls.push(`merge ${name} ${JSON.stringify(patch)}`), svc()),
    patchSlice: async (name: string) => (calls.push(`slice ${name}`), slice),
  }
  return {writer: writer as unknown as Writer, calls}
}

function fakeIO() {
  const out: string[] = []
  const err: string[] = []
  const exits: number[] = []
  return {io: {out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), exit: (c: number) => void exits.push(c)}, out, err, exits}
}

function fakeDeps(writer: Writer, journal: {file: Journal | null; log: string[]}, target: () => Target): WriteDeps {
  return {
    connect: async () => ctx,
    writer: async () => writer,
    readTarget: async () => target(),
    journal: {
      path: (key) => `journal/${key.namespace}/${key.service}.yaml`,
      read: () => journal.file,
      write: (file, j) => {
        journal.file = j
        journal.log.push(`write ${file} ${j.objects.map((x) => `${x.kind}/${x.name}:${x.state}`).join(',')}`)
      },
      remove: (file) => {
        journal.file = null
        journal.log.push(`remove ${file}`)
      },
    },
    canPrompt: () => false,
    confirm: async () => false,
    interrupts: () => new Interrupts(),
    now: () => new Date('2026-11-25T12:00:00Z'),
  }
}

const target = (service = svc()): Target => ({
  state: {nodes: [node('a', 'zone-a'), node('b', 'zone-b')], services: [service], endpointSlices: [slice], serverVersion: '1.34.1'},
  service,
  slices: [slice],
  namespace: 'shop',
  source: 'live',
  warnings: [],
})

const applyOptions = (o: Partial<ApplyOptions> = {}): ApplyOptions => ({
  name: 'web',
  mode: 'Auto',
  strategy: 'PreferSameZone',
  dryRun: 'none',
  force: false,
  forceConflicts: false,
  forceValue: false,
  yes: true,
  wait: false,
  waitMs: 60_000,
  json: false,
  exitCode: false,
  kubeVersion: undefined,
  source: {namespace: 'shop'},
  style: PLAIN,
  ...o,
})

describe('executeWrites', () => {
  const key = {server: ctx.server, context: 'kind', namespace: 'shop', service: 'web'}
  it('journal first: saved before the first request, after each object, and at the end', async () => {
    const {writer, calls} = fakeWriter()
    const log: string[] = []
    const writes = writesFor(planServiceMode(svc(), 'Auto'), false).map((w) => ({...w, run: async (x: WriteTarget) => (log.push('request'), w.run(x))}))
    const io = {
      file: 'j',
      write: (_: string, j: Journal) => void log.push(`save ${j.objects.map((o) => o.state).join(',')} ${j.history.at(-1)?.outcome}`),
      remove: () => void log.push('remove'),
    }
    const out = await executeWrites(writes, writer, {journal: emptyJournal(key), io, interrupts: new Interrupts(), history: {time: 't', action: 'apply --mode Auto'}})
    expect(log).toEqual(['save pending started', 'request', 'save written started', 'save written written (service/web)'])
    expect(calls).toEqual(['apply web'])
    expect(out).toMatchObject({written: [{kind: 'Service', name: 'web'}], failed: [], notWritten: [], conflict: null, interrupted: null, error: null})
  })

  it('a conflict stops the loop; the object goes back to its earlier record (none: the file is removed)', async () => {
    const {writer} = fakeWriter({conflicts: 1})
    const log: string[] = []
    const io = {file: 'j', write: () => void log.push('save'), remove: () => void log.push('remove')}
    const out = await executeWrites(writesFor(planServiceMode(svc(), 'Auto'), false), writer, {journal: emptyJournal(key), io, interrupts: new Interrupts()})
    expect(out.conflict).toEqual({kind: 'Service', name: 'web'})
    expect(out.notWritten).toEqual([{kind: 'Service', name: 'web'}])
    expect(out.journal!.objects).toEqual([])
    expect(log).toEqual(['save', 'remove'])
  })

  it('a failure that is not a CliError is named after the object; errorText words it otherwise', async () => {
    const {writer} = fakeWriter({fail: new Error('socket hang up')})
    const writes = writesFor(planServiceMode(svc(), 'Auto'), false)
    const a = await executeWrites(writes, writer, {journal: null, io: null, interrupts: new Interrupts()})
    expect(a.error).toBeInstanceOf(CliError)
    expect(a.error!.message).toBe('write Service web: socket hang up')
    expect(a.failed).toEqual([{kind: 'Service', name: 'web', error: 'write Service web: socket hang up'}])
    const b = await executeWrites(writes, writer, {journal: null, io: null, interrupts: new Interrupts(), errorText: (_, m) => m})
    expect(b.error!.message).toBe('socket hang up')
  })

  it('a signal before a write stops the loop there', async () => {
    const {writer, calls} = fakeWriter()
    const interrupts = new Interrupts()
    interrupts.signal = 'SIGTERM'
    const out = await executeWrites(writesFor(planServiceMode(svc(), 'Auto'), false), writer, {journal: null, io: null, interrupts})
    expect(out).toMatchObject({interrupted: 'SIGTERM', written: [], notWritten: [{kind: 'Service', name: 'web'}]})
    expect(calls).toEqual([])
  })
})

describe('runApply with fake effects', () => {
  it('--yes: checks access, shows the plan, journals, writes, and prints the undo command', async () => {
    const {writer, calls} = fakeWriter()
    const journal = {file: null as Journal | null, log: [] as string[]}
    const {io, out, exits} = fakeIO()
    await runApply(
      io,
      applyOptions(),
      fakeDeps(writer, journal, () => target()),
    )
    expect(calls).toEqual(['access patch services', 'apply web'])
    expect(out[0]).toMatch(/^Planned changes:\n/)
    expect(out.at(-1)).toBe('Applied: service/web. Undo with: kubectl topology reset svc/web -n shop')
    expect(exits).toEqual([])
    expect(journal.log).toEqual([
      'write journal/shop/web.yaml Service/web:pending',
      'write journal/shop/web.yaml Service/web:written',
      'write journal/shop/web.yaml Service/web:written',
    ])
    expect(journal.file!.history).toEqual([{time: '2026-11-25T12:00:00.000Z', action: 'apply --mode Auto', outcome: 'written (service/web)'}])
  })

  it('not on a terminal, without --yes: a preview; --exit-code makes it exit 1', async () => {
    const {writer, calls} = fakeWriter()
    const journal = {file: null as Journal | null, log: [] as string[]}
    const {io, out, exits} = fakeIO()
    await runApply(
      io,
      applyOptions({yes: false, exitCode: true}),
      fakeDeps(writer, journal, () => target()),
    )
    expect(calls).toEqual([])
    expect(out.at(-1)).toBe('Preview only: nothing was written. Run again with --yes to write (or --dry-run=server to have the API server validate the change).')
    expect(exits).toEqual([1])
    expect(journal.log).toEqual([])
  })

  it('a conflict re-reads, shows the new plan and writes it', async () => {
    const {writer, calls} = fakeWriter({conflicts: 1})
    const journal = {file: null as Journal | null, log: [] as string[]}
    const {io, out, err} = fakeIO()
    await runApply(
      io,
      applyOptions(),
      fakeDeps(writer, journal, () => target()),
    )
    expect(err).toEqual(['Conflict: service/web was modified since it was read; re-reading and re-planning (retry 1 of 3)'])
    expect(out.filter((t) => /^(Planned changes|New plan after re-reading):/.test(t))).toHaveLength(2)
    expect(calls).toEqual(['access patch services', 'apply web'])
    expect(out.at(-1)).toBe('Applied: service/web. Undo with: kubectl topology reset svc/web -n shop')
  })

  it('-o json: the report, once, with the result', async () => {
    const {writer} = fakeWriter()
    const {io, out} = fakeIO()
    await runApply(
      io,
      applyOptions({json: true, dryRun: 'client', yes: false}),
      fakeDeps(writer, {file: null, log: []}, () => target()),
    )
    expect(out).toHaveLength(1)
    expect(JSON.parse(out[0]!)).toMatchObject({
      kind: 'TopologyApply',
      service: 'web',
      mode: 'Auto',
      changed: true,
      result: {status: 'dry-run', message: 'Dry run (client): nothing was sent to the API server.'},
    })
  })

  it('no changes: says so and writes nothing', async () => {
    const {writer, calls} = fakeWriter()
    const {io, out} = fakeIO()
    await runApply(
      io,
      applyOptions(),
      fakeDeps(writer, {file: null, log: []}, () => target(svc({[TM]: 'Auto'}))),
    )
    expect(out).toEqual(['No changes: service shop/web already has --mode Auto.'])
    expect(calls).toEqual([])
  })

  it('no changes, --wait, the live hints differ from the prediction: the JSON says hints-differ, not no-changes (issue 23); exit 1', async () => {
    const {writer, calls} = fakeWriter()
    const {io, out, exits} = fakeIO()
    const psz: Service = {...svc(), spec: {...svc().spec, trafficDistribution: 'PreferSameZone'}}
    await runApply(
      io,
      applyOptions({mode: 'PreferSameZone', json: true, wait: true, waitMs: 1}),
      fakeDeps(writer, {file: null, log: []}, () => target(psz)),
    )
    expect(calls).toEqual([])
    const report = JSON.parse(out[0]!)
    expect(report.result).toMatchObject({status: 'hints-differ', message: 'live hints differ from the prediction'})
    expect(report.wait.matched).toBe(false)
    expect(exits).toEqual([1])
  })
})

describe('runReset with fake effects', () => {
  const applied = (): Journal => ({
    ...emptyJournal({server: ctx.server, context: 'kind', namespace: 'shop', service: 'web'}),
    objects: [
      {
        kind: 'Service',
        name: 'web',
        uid: 'u1',
        state: 'written',
        before: {topologyMode: null, topologyAwareHints: null, trafficDistribution: null},
        prior: {topologyMode: null, topologyAwareHints: null, trafficDistribution: null},
        after: {topologyMode: 'Auto', topologyAwareHints: null, trafficDistribution: null},
      },
    ],
  })
  const resetOptions = (o: Partial<ResetOptions> = {}): ResetOptions => ({
    name: 'web',
    dryRun: 'none',
    force: false,
    yes: true,
    json: false,
    exitCode: false,
    source: {namespace: 'shop'},
    style: PLAIN,
    ...o,
  })

  it('restores the value from before apply and removes the journal', async () => {
    const {writer, calls} = fakeWriter({service: svc({[TM]: 'Auto'})})
    const journal = {file: applied() as Journal | null, log: [] as string[]}
    const {io, out, exits} = fakeIO()
    await runReset(
      io,
      resetOptions(),
      fakeDeps(writer, journal, () => target()),
    )
    expect(calls[0]).toBe('access patch services')
    expect(calls.slice(1)).toEqual([`merge web ${JSON.stringify({metadata: {resourceVersion: '42', annotations: {[TM]: null}}})}`])
    expect(out[0]).toMatch(/^Reset restores:\n/)
    expect(out.at(-1)).toBe('Restored: service/web.')
    expect(journal.log).toEqual(['remove journal/shop/web.yaml', 'remove journal/shop/web.yaml'])
    expect(exits).toEqual([])
  })

  it('nothing journaled: not found (exit 4)', async () => {
    const {writer} = fakeWriter()
    const {io} = fakeIO()
    await expect(
      runReset(
        io,
        resetOptions(),
        fakeDeps(writer, {file: null, log: []}, () => target()),
      ),
    ).rejects.toMatchObject({
      message: 'nothing to reset: kubectl topology apply has no record of changes to service shop/web on https://k8s.example:6443 (looked in journal/shop/web.yaml)',
      exitCode: 4,
    })
  })
})

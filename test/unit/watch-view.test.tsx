// ink component tests of the live `watch` view: the screen as a pure function of its state
// (renderToString), and the running app in a fake terminal: it redraws when the store
// changes and quits on q / Ctrl-C.
import {renderToString} from 'ink'
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {diffFrames, watchFrame} from '../../src/watch/model.js'
import {makeStyle, PLAIN} from '../../src/render/style.js'
import type {WatchViewState} from '../../src/render/watch-lines.js'
import {runWatchView, WatchView} from '../../src/render/watch-view.js'
import {node, nodesIn, service, slice, spread, state} from './builders.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const svc = service('web', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
const before = state(nodesIn(ZONES), [svc], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
const after = state(nodesIn(ZONES), [svc], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 2}, true))])
const f0 = watchFrame(before, 'default', 'web', {kubeVersion: '1.36'})
const f1 = watchFrame(after, 'default', 'web', {kubeVersion: '1.36'})

const initial: WatchViewState = {frame: f0, previous: null, changes: [], events: [], status: 'watching', updatedAt: '12:00:00Z'}
const changed: WatchViewState = {
  frame: f1,
  previous: f0,
  changes: diffFrames(f0, f1).map((change) => ({time: '12:00:05Z', change})),
  events: [
    {
      time: '12:00:05Z',
      event: {
        metadata: {name: 'web.1'},
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones), addressType: IPv4',
        count: 2,
      },
    },
  ],
  status: 'watching',
  updatedAt: '12:00:05Z',
}

describe('WatchView (renderToString)', () => {
  it('shows the verdict, the zone table, the cliff and no highlight on the first frame', () => {
    const out = renderToString(<WatchView state={initial} style={PLAIN} />, {columns: 160})
    expect(out).toContain('Service default/web · Kubernetes 1.36 · updated 12:00:00Z')
    expect(out).toContain('IPv4: topology-mode Auto: hints set: TopologyAwareHintsEnabled')
    expect(out).toMatch(/zone-c\s+1\/0\s+33\.3%\s+3\s+3\s+3\s+3\s+3\s+\+0\.0%\s+uses hints/)
    expect(out).toContain('8 ready endpoints (one fewer) and the controller drops the hints')
    expect(out).not.toContain('*')
    expect(out).toContain('none yet')
  })
  it('marks the cells that changed, lists the changes newest first and the events', () => {
    const out = renderToString(<WatchView state={changed} style={PLAIN} />, {columns: 200})
    expect(out).toContain('hints dropped: TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints')
    // zone-c: READY 3 -> 2, MAX and ASSIGNED change (no allocation), LIVE HINTS 3 -> 2, no overload figure
    expect(out).toMatch(/zone-c\s+1\/0\s+33\.3%\s+\*2\s+3\s+\*-\s+\*0\s+\*2\s+\*-\s+uses hints/)
    expect(out).toMatch(/zone-a\s+1\/0\s+33\.3%\s+3\s+3\s+\*-\s+\*0\s+3\s+\*-\s+uses hints/)
    const lines = out.split('\n')
    const changesAt = lines.findIndex((l) => l.trim() === 'Changes')
    expect(lines[changesAt + 1]).toContain('12:00:05Z  no longer on the edge')
    expect(out).toContain('12:00:05Z  zone-c: ready endpoints 3 -> 2')
    expect(out).toContain(
      'event Warning TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones), addressType: IPv4 (x2)',
    )
  })
  it('colours only when the style has colour', () => {
    const plain = renderToString(<WatchView state={changed} style={PLAIN} />, {columns: 200})
    expect(plain).not.toMatch(/\x1b\[/)
    const coloured = renderToString(<WatchView state={changed} style={makeStyle(1)} />, {columns: 200})
    expect(coloured).toMatch(/\x1b\[31mhints dropped/)
  })
  it('lists a node that disables hints for every Service, with the fix', () => {
    const st = {...before, nodes: [...before.nodes, node('bare', null)]}
    const out = renderToString(<WatchView state={{...initial, frame: watchFrame(st, 'default', 'web', {kubeVersion: '1.36'})}} style={PLAIN} />, {columns: 200})
    expect(out).toContain('node bare (no-zone-label) disables hints for every Service: label node bare with topology.kubernetes.io/zone set to the zone it runs in')
  })
})

function fakeTerminal() {
  const stdout = Object.assign(new PassThrough(), {isTTY: true, columns: 160, rows: 60}) as unknown as NodeJS.WriteStream
  let written = ''
  ;(stdout as unknown as PassThrough).on('data', (c: Buffer) => (written += c.toString()))
  const stdin = Object.assign(new PassThrough(), {isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin}) as unknown as NodeJS.ReadStream & PassThrough
  return {stdout, stdin, output: () => written}
}

describe('runWatchView (ink render in a fake terminal)', () => {
  it('redraws on a store change and quits on q', async () => {
    const term = fakeTerminal()
    let current = initial
    const listeners = new Set<() => void>()
    const store = {get: () => current, subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l))}
    const never = new Promise(() => {})
    const running = runWatchView(store, PLAIN, never, {stdout: term.stdout, stdin: term.stdin})
    await waitFor(() => term.output().includes('none yet'))
    current = changed
    for (const l of listeners) l()
    await waitFor(() => term.output().includes('zone-c: ready endpoints 3 -> 2'))
    term.stdin.write('q')
    await expect(running).resolves.toBe('quit')
  })
  it('Ctrl-C is reported as an interrupt', async () => {
    const term = fakeTerminal()
    const store = {get: () => initial, subscribe: () => () => {}}
    const running = runWatchView(store, PLAIN, new Promise(() => {}), {stdout: term.stdout, stdin: term.stdin})
    await waitFor(() => term.output().includes('Threshold cliffs'))
    term.stdin.write('\x03')
    await expect(running).resolves.toBe('interrupt')
  })
  it('ends when the watch ends (e.g. SIGTERM)', async () => {
    const term = fakeTerminal()
    let end!: () => void
    const until = new Promise<void>((r) => (end = r))
    const running = runWatchView({get: () => initial, subscribe: () => () => {}}, PLAIN, until, {stdout: term.stdout, stdin: term.stdin})
    await waitFor(() => term.output().includes('Threshold cliffs'))
    end()
    await expect(running).resolves.toBe('ended')
  })
})

async function waitFor(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

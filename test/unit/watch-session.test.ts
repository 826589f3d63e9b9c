// watch/session.ts: the watch command's decisions, on literals.
import {describe, expect, it} from 'vitest'
import type {Change, WatchFrame} from '../../src/watch/model.js'
import {eventSignature, eventTime, explainOptions, nextView, resourceStatusText, restatesSummary, statusText, statusWorthALine} from '../../src/watch/session.js'
import type {EventObject} from '../../src/upstream/api/types.js'

describe('explainOptions', () => {
  it('--kube-version, else the server version, else the default', () => {
    expect(explainOptions('1.33', '1.34.1', undefined)).toEqual({versionSource: 'flag', kubeVersion: '1.33'})
    expect(explainOptions(undefined, '1.34.1', {'zone-a': 1})).toEqual({versionSource: 'server', kubeVersion: '1.34.1', traffic: {'zone-a': 1}})
    expect(explainOptions(undefined, undefined, undefined)).toEqual({versionSource: 'default'})
  })
})

describe('status', () => {
  it.each([
    [{state: 'backoff', delayMs: 2500, error: 'ECONNREFUSED'}, 'reconnecting in 2.5s (ECONNREFUSED)'],
    [{state: 'backoff', delayMs: 400, error: 'ECONNRESET'}, 'reconnecting in 400ms (ECONNRESET)'],
    [{state: 'relisting', reason: '410 Gone'}, 're-listing (410 Gone)'],
    [{state: 'synced', items: 3}, 'synced (3)'],
    [{state: 'watching'}, 'watching'],
  ] as const)('%j -> %s', (s, text) => {
    expect(resourceStatusText(s)).toBe(text)
  })

  it('the status line lists only the resources in trouble', () => {
    expect(
      statusText(
        new Map([
          ['nodes', 'watching'],
          ['services', 'synced (1)'],
        ]),
      ),
    ).toBe('watching Nodes, the Service, its EndpointSlices and Events')
    expect(
      statusText(
        new Map([
          ['nodes', 'watching'],
          ['endpointslices', 'reconnecting in 1.0s (ECONNREFUSED)'],
          ['events', 're-listing (410 Gone)'],
        ]),
      ),
    ).toBe('endpointslices: reconnecting in 1.0s (ECONNREFUSED); events: re-listing (410 Gone)')
  })

  it('a plain line for trouble and for the recovery from it', () => {
    expect(statusWorthALine({state: 'backoff', delayMs: 1, error: 'x'}, undefined)).toBe(true)
    expect(statusWorthALine({state: 'relisting', reason: 'x'}, 'watching')).toBe(true)
    expect(statusWorthALine({state: 'watching'}, 'reconnecting in 1.0s (x)')).toBe(true)
    expect(statusWorthALine({state: 'watching'}, 'synced (2)')).toBe(false)
    expect(statusWorthALine({state: 'synced', items: 2}, undefined)).toBe(false)
  })
})

describe('events', () => {
  const e: EventObject = {
    metadata: {name: 'web.1', uid: 'e1'},
    count: 2,
    message: 'hints dropped',
    lastTimestamp: '2026-11-25T12:00:00.123Z',
    firstTimestamp: '2026-11-25T11:00:00Z',
  } as EventObject
  it('an Event is new when its count, message or time changes', () => {
    expect(eventSignature(e)).toBe('2|hints dropped|2026-11-25T12:00:00.123Z')
    expect(eventSignature({...e, count: 3})).not.toBe(eventSignature(e))
  })
  it('listed at start: its own time; afterwards: now', () => {
    expect(eventTime(e, true, 'NOW')).toBe('2026-11-25T12:00:00Z')
    expect(eventTime(e, false, 'NOW')).toBe('NOW')
    expect(eventTime({metadata: {name: 'x'}} as EventObject, true, 'NOW')).toBe('NOW')
  })
})

describe('nextView', () => {
  const frame = (name: string) => ({name}) as unknown as WatchFrame
  const change = (kind: Change['kind']): Change => ({kind, tone: 'info', zone: null, message: kind})

  it('the first view: the frame, no previous, updated now', () => {
    const v = nextView(null, null, frame('f1'), [], [], 'watching', 't1')
    expect(v).toEqual({frame: frame('f1'), previous: null, changes: [], events: [], status: 'watching', updatedAt: 't1'})
  })

  it('with changes: the previous frame is kept for highlighting, changes appended with their time', () => {
    const v1 = nextView(null, null, frame('f1'), [], [], 'watching', 't1')
    const v2 = nextView(v1, frame('f1'), frame('f2'), [change('mode')], [{time: 't2', event: {metadata: {name: 'e'}} as EventObject}], 'watching', 't2')
    expect(v2).toMatchObject({frame: frame('f2'), previous: frame('f1'), changes: [{time: 't2', change: change('mode')}], updatedAt: 't2'})
    expect(v2.events).toHaveLength(1)
    // No change: previous and updatedAt stay.
    const v3 = nextView(v2, frame('f2'), frame('f3'), [], [], 'endpointslices: re-listing', 't3')
    expect(v3).toMatchObject({frame: frame('f3'), previous: frame('f1'), updatedAt: 't2', status: 'endpointslices: re-listing'})
  })

  it('keeps the newest 50 changes and 20 events', () => {
    let v = nextView(null, null, frame('f'), [], [], 's', 't')
    for (let i = 0; i < 30; i++)
      v = nextView(v, frame('f'), frame('f'), [change('drift'), change('cliff')], [{time: `${i}`, event: {metadata: {name: `${i}`}} as EventObject}], 's', `${i}`)
    expect(v.changes).toHaveLength(50)
    expect(v.changes.at(-1)!.time).toBe('29')
    expect(v.events.map((x) => x.time)).toEqual(Array.from({length: 20}, (_, i) => `${i + 10}`))
  })

  it('a change of verdict restates the summary', () => {
    expect(restatesSummary([change('zone-share'), change('hints-dropped')])).toBe(true)
    expect(restatesSummary([change('zone-share')])).toBe(false)
  })
})

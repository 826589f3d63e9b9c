import fc from 'fast-check'
import {Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {jsonText} from '../../src/render/encode.js'
import {jsonChunks, jsonStreamChunks, writeChunks} from '../../src/render/json-stream.js'

/** JSON.stringify(doc, null, 2), DEL, C1 and format characters escaped (issue 20), and a newline. */
const whole = (doc: unknown) => `${jsonText(doc)}\n`

describe('jsonChunks', () => {
  it('yields exactly jsonText(doc) (JSON.stringify(doc, null, 2), controls escaped) + newline, split anywhere (property)', () => {
    // piece 1..6: every object and array of a few values is gone into and split.
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue())), fc.integer({min: 1, max: 6}), (doc, piece) => {
        expect([...jsonChunks(doc, piece)].join('')).toBe(whole(doc))
      }),
      {numRuns: 500},
    )
  })

  it('leaves out what JSON.stringify leaves out: undefined, functions and symbols in objects; null for them in arrays', () => {
    const doc = {a: undefined, b: [undefined, () => 1, Symbol('s'), 2], c: {d: undefined, e: () => 1}, f: {g: undefined}, h: 1, i: undefined}
    for (const piece of [1, 2, 3, 4096]) expect([...jsonChunks(doc, piece)].join('')).toBe(whole(doc))
  })

  it('hands values with toJSON, and class instances, to JSON.stringify whole', () => {
    const doc = {when: new Date(0), list: [new Date(1), {x: 1}], map: new Map([[1, 2]]), nested: {at: new Date(2)}}
    for (const piece of [1, 2, 4096]) expect([...jsonChunks(doc, piece)].join('')).toBe(whole(doc))
  })

  it('prints empty objects and arrays as JSON.stringify does, at any depth', () => {
    const doc = {a: {}, b: [], c: [{}, [], {d: []}], e: {f: {}}, g: [[[]]]}
    for (const piece of [1, 2, 4096]) expect([...jsonChunks(doc, piece)].join('')).toBe(whole(doc))
  })

  it('splits one big element deep inside (a Service of 50,000 endpoints): many pieces, none big, the same text', () => {
    // The shape of explain -o json on svc/big: the endpoints of services[0].
    const row = (i: number) => ({
      addresses: [`10.0.${i >> 8}.${i & 255}`],
      nodeName: `node-${i % 5000}`,
      zone: `zone-${'abcdef'[i % 6]}`,
      conditions: {ready: true, serving: true, terminating: false},
      liveHints: {forZones: [`zone-${'abcdef'[i % 6]}`], forNodes: []},
      alternatives: null,
      drift: false,
    })
    const doc = {
      apiVersion: 'v1',
      cluster: {zones: [{name: 'zone-a'}]},
      services: [{name: 'big', endpoints: Array.from({length: 50_000}, (_, i) => row(i)), drift: {endpoints: 0}}],
    }
    const chunks = [...jsonChunks(doc)]
    const text = chunks.join('')
    expect(text).toBe(whole(doc))
    expect(chunks.length).toBeGreaterThan(100)
    // No piece holds more than a few hundred rows (about 130 characters a row): not the 28 MB of one Service.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(200_000)
  })

  it('streams one element of a long array at a time when each is big (explain -A)', () => {
    const doc = {a: 1, services: Array.from({length: 3}, (_, i) => ({i, rows: Array.from({length: 5000}, (_, j) => j)}))}
    const chunks = [...jsonChunks(doc)]
    expect(chunks.join('')).toBe(whole(doc))
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(whole(doc).length / 2)
  })

  it('jsonStreamChunks writes {...head, key: [...values]} as jsonChunks does, split anywhere (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()), fc.integer({min: 1, max: 6}), (head, values, piece) => {
        const key = 'services'
        if (Object.hasOwn(head, key)) return
        for (const p of [piece, 4096]) expect([...jsonStreamChunks(head, key, values, p)].join('')).toBe(whole({...head, [key]: values}))
      }),
      {numRuns: 300},
    )
    expect([...jsonStreamChunks({}, 'services', [])].join('')).toBe(whole({services: []}))
    expect([...jsonStreamChunks({a: undefined, b: 1}, 'services', [undefined, {c: undefined}])].join('')).toBe(whole({a: undefined, b: 1, services: [undefined, {c: undefined}]}))
  })

  it('jsonStreamChunks takes each element when the writer reaches it: text comes out before the last element is made (explain -A -o json)', () => {
    let made = 0
    const service = (i: number) => ({name: `svc-${i}`, zones: Array.from({length: 30}, (_, z) => ({name: `zone-${z}`, ready: z}))})
    const values = function* () {
      for (let i = 0; i < 1000; i++) {
        made++
        yield service(i)
      }
    }
    const head = {apiVersion: 'v1', warnings: []}
    const it = jsonStreamChunks(head, 'services', values())
    let text = ''
    // Up to the first piece holding a Service: only a run of Services (about PIECE values) was made.
    while (!text.includes('svc-0')) text += it.next().value ?? ''
    expect(made).toBeGreaterThan(0)
    expect(made).toBeLessThan(100)
    for (let r = it.next(); !r.done; r = it.next()) text += r.value
    expect(made).toBe(1000)
    expect(text).toBe(whole({...head, services: Array.from({length: 1000}, (_, i) => service(i))}))
  })

  it('writeChunks waits for each write and writes everything, whatever the characters', async () => {
    // A slow sink: every write completes later (the Buffer is written again only after that).
    const got: Buffer[] = []
    let writes = 0
    const sink = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        writes++
        got.push(Buffer.from(chunk))
        setImmediate(done)
      },
    })
    const doc = {services: Array.from({length: 2000}, (_, i) => ({i, s: 'x'.repeat(50), t: 'é😀\u2028\ud800 zone-ü'}))}
    await writeChunks(sink, jsonChunks(doc, 64))
    await new Promise<void>((resolve) => sink.end(resolve))
    expect(Buffer.concat(got).toString('utf8')).toBe(whole(doc))
    expect(writes).toBeGreaterThan(3)
  })

  it('writeChunks stops after a failed write (a reader gone)', async () => {
    let writes = 0
    const errors: Error[] = []
    const sink = new Writable({
      write(_chunk: Buffer, _enc, done) {
        writes++
        done(Object.assign(new Error('write EPIPE'), {code: 'EPIPE'}))
      },
    })
    sink.on('error', (e) => errors.push(e))
    const doc = {services: Array.from({length: 5000}, (_, i) => ({i, s: 'x'.repeat(50)}))}
    await writeChunks(sink, jsonChunks(doc, 64))
    expect(writes).toBe(1)
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['EPIPE'])
  })
})

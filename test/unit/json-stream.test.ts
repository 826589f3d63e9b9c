import fc from 'fast-check'
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {jsonChunks, writeChunks} from '../../src/render/json-stream.js'

describe('jsonChunks', () => {
  it('yields exactly JSON.stringify(doc, null, 2) + newline (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue(), {maxLength: 8}), (head, items) => {
        const doc = {...head, services: items}
        delete (doc as Record<string, unknown>)['__proto__']
        const text = [...jsonChunks(doc, 'services')].join('')
        expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`)
      }),
      {numRuns: 300},
    )
  })
  it('streams one piece per element', () => {
    const doc = {a: 1, services: [{x: 'a\nb'}, {y: [1, 2]}]}
    const chunks = [...jsonChunks(doc, 'services')]
    expect(chunks).toHaveLength(4)
    expect(chunks.join('')).toBe(`${JSON.stringify(doc, null, 2)}\n`)
  })
  it('falls back to one piece when the key is not the last one', () => {
    const doc = {services: [1, 2], z: true}
    expect([...jsonChunks(doc, 'services')]).toEqual([`${JSON.stringify(doc, null, 2)}\n`])
  })
  it('writeChunks waits for drain and writes everything', async () => {
    const sink = new PassThrough({highWaterMark: 1024})
    let got = ''
    const reading = new Promise<void>((resolve) => {
      sink.on('data', (c: Buffer) => (got += c.toString()))
      sink.on('end', resolve)
    })
    const doc = {services: Array.from({length: 2000}, (_, i) => ({i, s: 'x'.repeat(50)}))}
    await writeChunks(sink, jsonChunks(doc, 'services'))
    sink.end()
    await reading
    expect(got).toBe(`${JSON.stringify(doc, null, 2)}\n`)
  })
})

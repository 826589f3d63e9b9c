// Which texts the fast path reads in parts (src/cluster/snapshot/yaml.ts inParts), and how big
// the parts are: js-yaml's parseEvents is watched for the length of each text it reads. That
// the parts give what `yaml` gives: test/unit/snapshot-yaml.test.ts.
import {beforeEach, describe, expect, it, vi} from 'vitest'
import {parseAllDocuments, stringify} from 'yaml'
import {fastYamlDocs} from '../../src/cluster/snapshot/yaml.js'

const read = vi.hoisted(() => [] as number[])
vi.mock('js-yaml', async (importOriginal) => {
  const m = await importOriginal<typeof import('js-yaml')>()
  return {...m, parseEvents: (text: string, options: Parameters<typeof m.parseEvents>[1]) => (read.push(text.length), m.parseEvents(text, options))}
})
beforeEach(() => {
  read.length = 0
})

const reference = (text: string) => parseAllDocuments(text as string).map((d) => d.toJS())

describe('a List read in parts', () => {
  const list = (items: string) => `apiVersion: v1\nkind: List\nitems:\n${items}metadata:\n  resourceVersion: ""\n`

  it.each([
    ['compact entries', list('- a: 1\n  b: [x, y]\n- c: 2\n- 3\n'), 3],
    ['indented entries', 'kind: List\nitems:\n  - a: 1\n  - b: 2\n  -\n  - - x\n    - y\nz: 1\n', 4],
    ['entries last', 'kind: List\nitems:\n    - a: 1\n    - b: 2\n', 2],
    ['a document start marker first', '---\nkind: List\nitems:\n- a: 1\n- b: 2\n', 2],
    ['a document end marker last', 'kind: List\nitems:\n- a: 1\n- b: 2\n...\n', 2],
    ['comments at any column', list('# one\n- a: 1\n# two\n   # three\n- b: 2 # four\n#five\n'), 2],
    ['blank lines', list('\n- a: 1\n\n\n- b: 2\n\n'), 2],
    ['block scalars', list('- a: |+\n    x\n\n- b: >-\n    y\n     z\n- |\n  w\n'), 3],
    ['multi-line scalars', list('- a: x\n   y\n- b: "p\n    q"\n- c: \'r\n    s\'\n- d: {e: 1,\n    f: 2}\n'), 4],
    ['CRLF line ends', 'kind: List\r\nitems:\r\n- a: 1\r\n- b: "x"\r\n\r\nmetadata: {}\r\n', 2],
    ['trailing spaces after items:', 'kind: List\nitems:   \n- a: 1\n- b: 2\n', 2],
  ])('%s: the skeleton, then each entry alone (parts of 1 character), as yaml reads the whole', (_, text, entries) => {
    const docs = fastYamlDocs(text, 1)
    expect(read).toHaveLength(1 + entries)
    expect(docs).toStrictEqual(reference(text))
  })

  it('a text no longer than a part is read whole', () => {
    const text = list('- a: 1\n- b: 2\n')
    expect(fastYamlDocs(text, text.length)).toStrictEqual(reference(text))
    expect(read).toEqual([text.length])
  })

  it.each([
    ['a second items:', 'items:\n- a\nkind: List\nitems:\n- b\n'],
    ['items: not a block sequence', 'kind: List\nitems: [a,\n  b]\nc: 1\n'],
    ['a tab in an indentation', 'items:\n- a: 1\n\t- b: 2\n'],
    ['an entry that is not "- "', 'items:\n- a: 1\n-b: 2\n'],
  ])('%s: read whole, at once', (_, text) => {
    fastYamlDocs(text, 1)
    expect(read).toEqual([text.length])
  })

  it.each([
    ['items of another document', 'a: 1\n---\nitems:\n- a: 1\n- b: 2\n'],
    ['a quoted key holding items:', 'k: "x\nitems:\n- a"\nz: "y"\n'],
  ])('%s: the skeleton fails, then read whole', (_, text) => {
    fastYamlDocs(text, 1)
    expect(read.at(-1)).toBe(text.length)
    expect(read.slice(0, -1).every((n) => n < text.length)).toBe(true)
  })

  it('a big List (200 Services and their slices, as kubectl prints them): parts of about 64 KB, the documents yaml reads', () => {
    const items = []
    for (let i = 0; i < 200; i++) {
      const name = `svc-${i}`
      items.push({apiVersion: 'v1', kind: 'Service', metadata: {name, namespace: 'shop'}, spec: {selector: {app: name}, ports: [{port: 80, protocol: 'TCP'}]}})
      items.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {name: `${name}-x`, namespace: 'shop', labels: {'kubernetes.io/service-name': name}},
        addressType: 'IPv4',
        endpoints: Array.from({length: 5}, (_, j) => ({
          addresses: [`10.0.${i % 250}.${j}`],
          conditions: {ready: true},
          zone: `zone-${j % 3}`,
          hints: {forZones: [{name: `zone-${j % 3}`}]},
        })),
      })
    }
    // yaml writes entries at column 0 (indentSeq false), as kubectl does.
    const text = stringify({apiVersion: 'v1', items, kind: 'List', metadata: {resourceVersion: ''}}, {indentSeq: false, lineWidth: 0})
    expect(text.length).toBeGreaterThan(3 << 16)
    const docs = fastYamlDocs(text)
    expect(docs).toStrictEqual(reference(text))
    // The skeleton, then parts of whole entries: none much more than 64 KB, none of the whole text.
    expect(read.length).toBeGreaterThan(text.length / (1 << 16))
    expect(Math.max(...read)).toBeLessThan((1 << 16) + 2000)
  })
})

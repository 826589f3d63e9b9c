// Datasets of the KEP-2004 evaluation tool (github.com/googleinterns/k8s-topology-simulator @ b2a4aae)
// as generators of zone rows (name, nodes, endpoints per zone). Pure: the seeded families use prng.ts.
//
//  representative  example/topology-sim-input.csv: the 19 hand-picked rows ("Representative data points")
//  range-a         hack/range-input-generator.py section A: node triples = combinations_with_replacement(1..10, 3)
//                  x endpoint triples = combinations_with_replacement(0..100, 3) minus (0,0,0); 38,907,000 rows,
//                  named "<i>-(a, b, c)" like the generator (i counts per node triple, from 0)
//  range-high      section B: nodes 30/30/30 x combinations_with_replacement(range(100, 1001, 7), 3); 366,145 rows, "<i>-high"
//  range           A then B: 39,273,145 rows (the KEP's "39+ million inputs"; `valid cases` in data/results.csv)
//  balanced        seeded: endpoints proportional to nodes with at most 10% noise per zone
//  unbalanced      seeded: nodes 1..10 and endpoints 0..100 drawn independently per zone (unlike range-a, a big
//                  zone can have few endpoints); all-zero rows are redrawn
import {prngInt, prngStep, seedFrom} from './prng.js'
import type {Family} from './names.js'

export interface DatasetZone {
  name: string
  nodes: number
  endpoints: number
}
export interface DatasetRow {
  name: string
  zones: DatasetZone[]
}

export type {Family}

const REPRESENTATIVE: [string, number, number, number, number, number, number][] = [
  ['2 zones with no endpoints', 30, 100, 30, 0, 30, 0],
  ['1 zone with no endpoints', 30, 100, 30, 100, 30, 0],
  ['2 zones with few endpoints', 30, 100, 30, 10, 30, 10],
  ['balanced minimal endpoints', 30, 1, 30, 1, 30, 1],
  ['unbalanced minimal endpoints', 30, 2, 30, 1, 30, 0],
  ['only 1 endpoint', 30, 1, 30, 0, 30, 0],
  ['only 2 endpoint', 30, 2, 30, 0, 30, 0],
  ['somewhat balanced small', 30, 3, 30, 2, 30, 2],
  ['somewhat balanced medium', 30, 10, 30, 9, 30, 12],
  ['somewhat balanced large', 30, 60, 30, 65, 30, 55],
  ['somewhat balanced huge', 300, 654, 300, 704, 300, 555],
  ['balanced endpoints - uneven nodes', 40, 40, 30, 30, 20, 20],
  ['unbalanced endpoints - uneven nodes', 40, 70, 30, 25, 20, 15],
  ['mostly balanced small - uneven nodes', 1, 3, 2, 2, 2, 2],
  ['mostly balanced medium - uneven nodes', 15, 10, 20, 18, 12, 10],
  ['mostly balanced large - uneven nodes', 54, 80, 58, 90, 74, 105],
  ['perfectly balanced small', 3, 3, 2, 2, 1, 1],
  ['perfectly balanced medium', 10, 20, 11, 22, 12, 24],
  ['perfectly balanced large', 50, 100, 60, 120, 70, 140],
]

function row3(name: string, nodes: readonly number[], eps: readonly number[]): DatasetRow {
  return {name, zones: nodes.map((k, i) => ({name: `zone${i + 1}`, nodes: k, endpoints: eps[i] as number}))}
}

/** Python's itertools.combinations_with_replacement over `values`, r = 3, in its order. */
function* triples(values: readonly number[]): Generator<[number, number, number]> {
  const n = values.length
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) for (let k = j; k < n; k++) yield [values[i]!, values[j]!, values[k]!]
}

function range(lo: number, hiExclusive: number, step = 1): number[] {
  const out: number[] = []
  for (let v = lo; v < hiExclusive; v += step) out.push(v)
  return out
}

function* section(nodes: readonly number[], values: readonly number[], suffix: string): Generator<DatasetRow> {
  let i = 0
  for (const t of triples(values)) {
    if (t[0] === 0 && t[1] === 0 && t[2] === 0) continue
    yield row3(`${i}${suffix}`, nodes, t)
    i++
  }
}

export interface DatasetOptions {
  seed?: string | number
  /** rows to generate for the seeded families (default 1000); a cap for the others */
  count?: number
  /** zones for the seeded families (default 3) */
  zones?: number
}

export function* generate(family: Family, opts: DatasetOptions = {}): Generator<DatasetRow> {
  const cap = opts.count ?? Number.POSITIVE_INFINITY
  let produced = 0
  const take = function* (it: Iterable<DatasetRow>): Generator<DatasetRow> {
    for (const r of it) {
      if (produced >= cap) return
      produced++
      yield r
    }
  }
  switch (family) {
    case 'representative':
      yield* take(REPRESENTATIVE.map((r) => row3(r[0], [r[1], r[3], r[5]], [r[2], r[4], r[6]])))
      return
    case 'range-a':
      yield* take(rangeA())
      return
    case 'range-high':
      yield* take(section([30, 30, 30], range(100, 1001, 7), '-high'))
      return
    case 'range':
      yield* take(rangeA())
      yield* take(section([30, 30, 30], range(100, 1001, 7), '-high'))
      return
    case 'balanced':
    case 'unbalanced':
      yield* seeded(family, opts)
      return
  }
}

/** One node triple's rows of range-a (e.g. [7, 8, 10]), named as the generator names them. */
export function rangeASection(nodes: readonly [number, number, number]): Generator<DatasetRow> {
  return section(nodes, range(0, 101), `-(${nodes.join(', ')})`)
}

function* rangeA(): Generator<DatasetRow> {
  const eps = range(0, 101)
  for (const nodes of triples(range(1, 11))) yield* section(nodes, eps, `-(${nodes.join(', ')})`)
}

function* seeded(family: 'balanced' | 'unbalanced', opts: DatasetOptions): Generator<DatasetRow> {
  let state = seedFrom(opts.seed ?? 1)
  const count = opts.count ?? 1000
  const Z = opts.zones ?? 3
  let v: number
  for (let i = 0; i < count; i++) {
    const zones: DatasetZone[] = []
    if (family === 'unbalanced') {
      let total = 0
      do {
        zones.length = 0
        total = 0
        for (let z = 0; z < Z; z++) {
          let k: number
          ;[k, state] = prngInt(state, 1, 10)
          ;[v, state] = prngInt(state, 0, 100)
          zones.push({name: `zone${z + 1}`, nodes: k, endpoints: v})
          total += v
        }
      } while (total === 0)
    } else {
      let perNode: number
      ;[perNode, state] = prngInt(state, 1, 10)
      for (let z = 0; z < Z; z++) {
        let k: number
        let u: number
        ;[k, state] = prngInt(state, 1, 10)
        ;[u, state] = prngStep(state)
        const noise = 1 + (u * 0.2 - 0.1)
        zones.push({name: `zone${z + 1}`, nodes: k, endpoints: Math.max(1, Math.round(k * perNode * noise))})
      }
    }
    yield {name: `${family}-${i}`, zones}
  }
}

export class DatasetParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message)
  }
}

/**
 * What one row may hold: a cluster within Kubernetes' documented limits (kubernetes.io
 * "Considerations for large clusters": at most 5,000 nodes and 150,000 Pods), so at most 5,000
 * zones (a zone is a label on at least one node). A row of 10^20 nodes ran for minutes and GBs
 * (issue 20); such a row is refused naming its line.
 */
const DATASET_LIMITS = {nodes: 5_000, endpoints: 150_000, zones: 5_000} as const

/**
 * The tool's input CSV: header `name,zone1,zone2,...`, rows `name,"k n","k n",...` (nodes then endpoints).
 * Unlike the tool (which silently stops at a malformed line and skips non-numeric rows), every
 * malformed line is an error naming the line.
 */
export function parseDatasetCsv(text: string): DatasetRow[] {
  const lines = text.split(/\r?\n/)
  const header = splitCsv(lines[0] ?? '', 1)
  if (header.length < 2) throw new DatasetParseError('the header must be name,zone1,zone2,... (at least one zone column)', 1)
  const zoneNames = header.slice(1).map((h) => h.trim())
  if (zoneNames.length > DATASET_LIMITS.zones) {
    throw new DatasetParseError(`${zoneNames.length} zone columns: more than the ${DATASET_LIMITS.zones} zones a cluster of at most ${DATASET_LIMITS.nodes} nodes can have`, 1)
  }
  const seen = new Set<string>()
  for (const z of zoneNames) {
    if (z === '') throw new DatasetParseError('a zone column has no name', 1)
    if (seen.has(z)) throw new DatasetParseError(`zone ${JSON.stringify(z)} is named twice`, 1)
    seen.add(z)
  }
  const rows: DatasetRow[] = []
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string
    if (line.trim() === '') continue
    const cells = splitCsv(line, i + 1)
    if (cells.length !== header.length) {
      throw new DatasetParseError(`expected ${header.length} fields like the header, found ${cells.length}`, i + 1)
    }
    const zones = zoneNames.map((name, z) => {
      const m = (cells[z + 1] as string).trim().match(/^(\d+)\s+(\d+)$/)
      if (!m) throw new DatasetParseError(`zone ${name}: expected "NODES ENDPOINTS" (two non-negative integers), found ${JSON.stringify(cells[z + 1])}`, i + 1)
      return {name, nodes: Number(m[1]), endpoints: Number(m[2])}
    })
    const nodes = zones.reduce((n, z) => n + z.nodes, 0)
    const endpoints = zones.reduce((n, z) => n + z.endpoints, 0)
    if (!(nodes <= DATASET_LIMITS.nodes)) {
      throw new DatasetParseError(`${nodes} nodes: more than the ${DATASET_LIMITS.nodes} nodes a cluster holds (Kubernetes' documented limit)`, i + 1)
    }
    if (!(endpoints <= DATASET_LIMITS.endpoints)) {
      throw new DatasetParseError(`${endpoints} endpoints: more than the ${DATASET_LIMITS.endpoints} Pods a cluster holds (Kubernetes' documented limit)`, i + 1)
    }
    rows.push({name: cells[0] as string, zones})
  }
  return rows
}

function splitCsv(line: string, lineNo: number): string[] {
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          cur += '"'
          i++
        } else quoted = false
      } else cur += ch
    } else if (ch === '"') {
      if (cur !== '') throw new DatasetParseError('a quote in the middle of a field', lineNo)
      quoted = true
    } else if (ch === ',') {
      out.push(cur)
      cur = ''
    } else cur += ch
  }
  if (quoted) throw new DatasetParseError('unterminated quoted field', lineNo)
  out.push(cur)
  return out
}

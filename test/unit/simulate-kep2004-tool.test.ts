// Cross-check against the KEP-2004 evaluation tool's own output (github.com/googleinterns/k8s-topology-simulator
// at b2a4aae, rebuilt from its sources and run; see test/unit/data/kep2004-tool/README.md for how). For every
// input row and every algorithm, our count-level strategy (src/simulate/strategies/*, through scoreRow) must
// print exactly what the tool printed: score, in-zone-traffic score, deviation score, slice score,
// max deviation, mean deviation and SD of deviation, formatted as the tool formats them
// (strconv.FormatFloat(x, 'f', 4, 64)), and "invalid" where the tool says invalid.
import {readFileSync} from 'node:fs'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {generate, parseDatasetCsv, type DatasetRow} from '../../src/simulate/dataset.js'
import {goFormatExact, goFormatFixed} from '../../src/simulate/gofmt.js'
import {scoreRow} from '../../src/simulate/dataset-run.js'
import type {Kep2004Strategy} from '../../src/simulate/simulate.js'

const DATA = new URL('./data/kep2004-tool/', import.meta.url)
const read = (name: string) => readFileSync(new URL(name, DATA), 'utf8')

/** The tool's -alg names (run-all.sh) for our strategies. */
const ALGS: [Kep2004Strategy, string][] = [
  ['none', 'Original'],
  ['local', 'Local'],
  ['local-shared', 'LocalShared'],
  ['local-weighted', 'LocalWeighted'],
  ['local-opt', 'LocalOpt'],
]

interface Input {
  file: string
  /** how the rows were generated (checked below); null: written by hand or the tool's own file */
  regenerate: (() => DatasetRow[]) | null
  /** algorithms the tool finished on this input (default: all five) */
  algs?: string[]
}
const INPUTS: Input[] = [
  {file: 'topology-sim-input', regenerate: () => [...generate('representative')]},
  {file: 'balanced-seed1-300', regenerate: () => [...generate('balanced', {seed: '1', count: 300, zones: 3})]},
  {file: 'unbalanced-seed1-300', regenerate: () => [...generate('unbalanced', {seed: '1', count: 300, zones: 3})]},
  {file: 'unbalanced-5zones-seed5-200', regenerate: () => [...generate('unbalanced', {seed: '5', count: 200, zones: 5})]},
  // every 130,477th row of `range` (row 0, 130477, ...): the first five are regenerated below
  {file: 'range-every130477th', regenerate: null},
  // hand-written corner cases: zones without nodes or endpoints, N < 3 x zones, slices of 100, one zone
  {file: 'edge-3zones', regenerate: null},
  {file: 'edge-1zone', regenerate: null},
  // no node anywhere: every zone has zero traffic and the tool's LocalShared never returns (it keeps
  // asking the neediest zone, which is the donor itself, for an endpoint); simulate stops there instead
  {file: 'no-nodes', regenerate: null, algs: ['Original', 'Local', 'LocalWeighted', 'LocalOpt']},
]

/** Go's encoding/csv reader for the tool's output (quoted names contain commas). */
function parseToolCsv(text: string): string[][] {
  const rows: string[][] = []
  for (const line of text.split('\n')) {
    if (line === '') continue
    const cells: string[] = []
    let cur = ''
    let quoted = false
    for (let i = 0; i < line.length; i++) {
      const ch = line[i] as string
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') {
          cur += '"'
          i++
        } else if (ch === '"') quoted = false
        else cur += ch
      } else if (ch === '"') quoted = true
      else if (ch === ',') {
        cells.push(cur)
        cur = ''
      } else cur += ch
    }
    cells.push(cur)
    rows.push(cells)
  }
  return rows
}

const HEADER = ['input name', 'score', 'in-zone-traffic score', 'deviation score', 'slice score', 'max deviation', 'mean deviation', 'SD of deviation']

/** What the tool would print for our result (process/output-parser.go parseResult). */
function ours(row: DatasetRow, strategy: Kep2004Strategy): string[] {
  const [r] = scoreRow(row, [strategy])
  if (r!.score === null) return [row.name, ...Array<string>(7).fill('invalid')]
  const f = (x: number) => goFormatFixed(x, 4)
  return [
    row.name,
    f(r!.score.score),
    f(r!.score.inZoneScore),
    f(r!.score.deviationScore),
    f(r!.score.sliceScore),
    f(r!.measures.maxOverload * 100) + '%',
    f(r!.measures.meanOverload * 100) + '%',
    f(r!.measures.sdOverload),
  ]
}

describe('goFormatFixed = strconv.FormatFloat(x, f, prec, 64)', () => {
  // expected values printed by Go 1.26's strconv.FormatFloat for the same inputs
  it('rounds the exact binary value half to even, like Go (toFixed rounds ties up)', () => {
    expect(goFormatFixed(0.03125, 4)).toBe('0.0312') // exactly halfway: Go keeps the even digit
    expect((0.03125).toFixed(4)).toBe('0.0313')
    expect(goFormatFixed(0.09375, 4)).toBe('0.0938')
    expect(goFormatFixed(2.5, 0)).toBe('2')
    expect(goFormatFixed(1.005, 2)).toBe('1.00') // 1.005 is 1.00499999999999989... in binary
    expect(goFormatFixed(99.99995, 4)).toBe('99.9999') // 99.99994999... in binary
    expect(goFormatFixed(99.99996, 4)).toBe('100.0000')
    expect(goFormatFixed(0.5, 0)).toBe('0')
    expect(goFormatFixed(1.5, 0)).toBe('2')
    expect(goFormatFixed(12.34375, 4)).toBe('12.3438')
    expect(goFormatFixed(-0.00001, 4)).toBe('-0.0000')
    expect(goFormatFixed(0, 4)).toBe('0.0000')
    expect(goFormatFixed(72.5, 4)).toBe('72.5000')
    expect(goFormatFixed(-0, 4)).toBe('-0.0000') // Go: "-0.0000"; toFixed drops the sign
    expect(goFormatFixed(-0.03125, 4)).toBe('-0.0312')
  })
  it('its toFixed shortcut gives what the exact expansion gives: ties, near-ties, scores, any double', () => {
    const near = fc.tuple(fc.integer({min: -4_000_000, max: 4_000_000}), fc.constantFrom(0, 1, -1, 2, -2)).map(([k, ulps]) => {
      let x = k / 32 // every tie at 4 decimals is an odd multiple of 1/32
      for (let i = 0; i < Math.abs(ulps); i++) x = ulps > 0 ? x + Number.EPSILON * Math.max(1, Math.abs(x)) : x - Number.EPSILON * Math.max(1, Math.abs(x))
      return x
    })
    const any = fc.oneof(
      near,
      fc.double({min: -1e6, max: 1e6, noNaN: true}),
      fc.double({noNaN: true, noDefaultInfinity: true}),
      fc.integer({min: -100000, max: 100000}).map((k) => k / 10000),
    )
    fc.assert(
      fc.property(any, fc.integer({min: 0, max: 6}), (x, prec) => {
        if (Math.abs(x) >= 1e21) return
        expect(goFormatFixed(x, prec), `${x} ${prec}`).toBe(goFormatExact(x, prec))
      }),
      {numRuns: 5000},
    )
  })
})

describe('cross-check with the evaluation tool (b2a4aae) on its inputs', () => {
  for (const input of INPUTS) {
    const rows = parseDatasetCsv(read(`${input.file}.input.csv`))
    if (input.file === 'range-every130477th' || input.regenerate !== null)
      it(`${input.file}: the input is what the dataset family generates`, () => {
        if (input.regenerate !== null) {
          expect(rows).toEqual(input.regenerate())
        } else {
          const want: DatasetRow[] = []
          let i = 0
          for (const r of generate('range')) {
            if (i++ % 130477 === 0) want.push(r)
            if (want.length === 5) break
          }
          expect(rows.slice(0, 5)).toEqual(want)
        }
      })
    for (const [strategy, alg] of ALGS) {
      if (input.algs !== undefined && !input.algs.includes(alg)) continue
      it(`${input.file}: ${strategy} prints what the tool's ${alg} printed, row by row`, () => {
        const tool = parseToolCsv(read(`${input.file}.${alg}.csv`))
        expect(tool[0]).toEqual(HEADER)
        expect(tool.slice(1).map((r) => r[0])).toEqual(rows.map((r) => r.name)) // no row dropped
        const mismatches: string[] = []
        rows.forEach((row, i) => {
          const want = tool[i + 1] as string[]
          const got = ours(row, strategy)
          for (let c = 1; c < HEADER.length; c++) {
            if (got[c] !== want[c]) mismatches.push(`${row.name} ${HEADER[c]}: tool ${want[c]}, ours ${got[c]}`)
          }
        })
        expect(mismatches, mismatches.slice(0, 10).join('\n')).toEqual([])
      })
    }
  }
})

// simulate --dataset: the rows (a family generated from --seed, or a CSV file read here),
// each scored by simulate/dataset-run.ts, and the aggregates or, with --per-cluster, one CSV
// row per cluster and strategy streamed to stdout as they come.
import {describeFileError, readTextBounded} from '../cluster/files.js'
import {CliError, ExitCode} from '../errors.js'
import {DatasetParseError, generate, parseDatasetCsv, type DatasetRow} from '../simulate/dataset.js'
import {Aggregator, DATASET_DEFAULT_STRATEGIES, DATASET_NOTES, scoreRow} from '../simulate/dataset-run.js'
import {FAMILIES, type Family, type StrategyName} from '../simulate/names.js'
import type {DatasetReport} from '../simulate/report.js'
import {ROW_CSV_HEADER, renderDataset, rowCsv} from '../render/simulate.js'
import type {CommandIO} from './base.js'

export interface DatasetOptions {
  spec: string
  strategies: StrategyName[] | undefined
  topologyKeys: string[] | undefined
  seed: string
  clusters?: number | undefined
  zones?: number | undefined
  output: 'table' | 'wide' | 'json' | 'yaml' | 'csv'
  noHeaders: boolean
  perCluster: boolean
}

async function rowsOf(o: DatasetOptions): Promise<{rows: Iterable<DatasetRow>; seeded: boolean}> {
  const spec = o.spec
  if ((FAMILIES as readonly string[]).includes(spec)) {
    return {rows: generate(spec as Family, {seed: o.seed, count: o.clusters, zones: o.zones}), seeded: spec === 'balanced' || spec === 'unbalanced'}
  }
  let text: string
  try {
    // Type and size checked before reading (cluster/files.ts: a dataset is at most 256 MiB).
    text = readTextBounded(spec, 'dataset')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new CliError(
      code === 'ENOENT' ? `--dataset: "${spec}" is neither a file nor a dataset family (${FAMILIES.join(', ')})` : `--dataset: cannot read ${spec}: ${describeFileError(e)}`,
      ExitCode.INPUT,
    )
  }
  let rows: Iterable<DatasetRow>
  try {
    rows = parseDatasetCsv(text)
  } catch (e) {
    if (e instanceof DatasetParseError) throw new CliError(`${spec}:${e.line}: ${e.message}`, ExitCode.INPUT)
    throw e
  }
  if (o.clusters !== undefined) rows = [...rows].slice(0, o.clusters)
  return {rows, seeded: false}
}

export async function runDataset(io: CommandIO, o: DatasetOptions, stdout: {write(text: string): unknown} = process.stdout): Promise<void> {
  const {rows, seeded} = await rowsOf(o)
  const strategies = o.strategies ?? [...DATASET_DEFAULT_STRATEGIES]
  const notes = strategies.flatMap((s) => (DATASET_NOTES[s] !== undefined ? [`${s}: ${DATASET_NOTES[s]}`] : []))
  const agg = new Aggregator(strategies)
  if (o.perCluster && o.output !== 'csv') throw new CliError('--per-cluster needs -o csv', ExitCode.USAGE)
  const buf: string[] = o.perCluster && !o.noHeaders ? [ROW_CSV_HEADER.join(',')] : []
  let count = 0
  for (const row of rows) {
    let scores
    try {
      scores = scoreRow(row, strategies, {topologyKeys: o.topologyKeys})
    } catch (e) {
      throw new CliError(`--dataset: row "${row.name}": ${(e as Error).message}`, ExitCode.INPUT)
    }
    count++
    for (const r of scores) {
      agg.add(r)
      if (o.perCluster) buf.push(rowCsv(r))
    }
    if (o.perCluster && buf.length >= 4096) {
      stdout.write(buf.join('\n') + '\n')
      buf.length = 0
    }
  }
  if (o.output !== 'json' && o.output !== 'yaml') for (const n of notes) io.err(`Note: ${n}`)
  if (o.perCluster) {
    if (buf.length > 0) stdout.write(buf.join('\n') + '\n')
    return
  }
  const report: DatasetReport = {
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologySimulationDataset',
    dataset: o.spec,
    seed: seeded ? o.seed : null,
    clusters: count,
    notes,
    aggregates: agg.result(),
  }
  io.out(renderDataset(report, {format: o.output, noHeaders: o.noHeaders}))
}

// Rendering of simulate reports: table / wide (ranked, one row per strategy), json / yaml (the
// report as is, schema/simulate.v1.json), csv. Formatting only.
import {csvText, jsonText, yamlText} from './encode.js'
import type {RowScore} from '../simulate/dataset-run.js'
import {goFormatFixed} from '../simulate/gofmt.js'
import type {DatasetReport, ServiceReport, SimulateReport} from '../simulate/report.js'
import {rank, type StrategyResult} from '../simulate/simulate.js'
import {isResearch, RESEARCH_NOTE, type StrategyName} from '../simulate/names.js'
import type {RolloutPlan} from '../simulate/workload.js'
import {formatTable} from './table.js'
import {PLAIN, type Style} from './style.js'
import {escapeDeep} from './escape.js'
import {recommendationLine} from './advice.js'

export type SimulateFormat = 'table' | 'wide' | 'json' | 'yaml' | 'csv'

// The report types are simulate/'s (simulate/report.ts); named here too for the views.
export type {DatasetReport, ServiceReport, SimulateReport}

const pct = (v: number, digits = 1) => `${(v * 100).toFixed(digits)}%`

/** A strategy's name in a table: research strategies say so. */
export const strategyLabel = (s: StrategyName): string => (isResearch(s) ? `${s} (research)` : s)
/** The line under a table that shows research strategies. */
export const RESEARCH_LEGEND = `(research): ${RESEARCH_NOTE} (KEP-2004 subsetting, KEP-536 topologyKeys); ranked because asked for`
const num = (v: number | null, digits = 2) => (v === null ? 'invalid' : v.toFixed(digits))

function bar(share: number, width = 20): string {
  const n = Math.max(0, Math.min(width, Math.round(share * width)))
  return '█'.repeat(n) + '·'.repeat(width - n)
}

/**
 * Which output a simulate report gets: the ink view (simulate-view.tsx, drawn once) on a
 * terminal with the default table; plain text for pipes, files, -o wide/csv, --no-headers,
 * --plain and TERM=dumb.
 */
export function chooseSimulateView(o: {format: SimulateFormat; isTTY: boolean; noHeaders: boolean; plain: boolean; env: Record<string, string | undefined>}): 'ink' | 'text' {
  return o.format === 'table' && o.isTTY && !o.noHeaders && !o.plain && o.env.TERM !== 'dumb' ? 'ink' : 'text'
}

export function renderSimulate(raw: SimulateReport, opts: {format: SimulateFormat; style?: Style; noHeaders?: boolean}): string {
  const style = opts.style ?? PLAIN
  if (opts.format === 'json') return jsonText(raw)
  if (opts.format === 'yaml') return yamlText(raw, {lineWidth: 0}).trimEnd()
  const report = escapeDeep(raw)
  if (opts.format === 'csv') return csvOfReport(report, opts.noHeaders === true)
  const out: string[] = []
  for (const svc of report.services) {
    const zones = svc.input.zones.map((z) => `${z === '' ? '(no zone)' : z} ${svc.input.endpointsByZone[z] ?? 0} ep / ${pct(svc.input.trafficShare[z] ?? 0, 0)} traffic`).join(', ')
    out.push(style.bold(`Service ${svc.namespace}/${svc.name}`) + ` (${svc.input.readyEndpoints} ready endpoints; ${zones}; traffic model ${report.trafficModel})`)
    if (report.whatIf.length > 0) out.push(`What-if: ${report.whatIf.join('; ')}`)
    const ranked = rank(svc.strategies)
    const header = ['RANK', 'STRATEGY', 'SCORE', 'IN-ZONE', 'MAX-OVERLOAD', 'MEAN-OVERLOAD', 'SLICES', 'FALLBACK-ZONES']
    if (opts.format === 'wide') header.push('SD', 'UNSERVED', 'NOTE')
    const rows = ranked.map((r, i) => {
      const row = [
        String(i + 1),
        strategyLabel(r.strategy),
        r.score === null ? style.bad('invalid') : num(r.score),
        pct(r.inZoneTraffic),
        r.maxOverload > 0.5 ? style.bad(pct(r.maxOverload)) : r.maxOverload > 0.2 ? style.warn(pct(r.maxOverload)) : pct(r.maxOverload),
        pct(r.meanOverload),
        String(r.endpointSlices),
        r.fallbackZones.length === 0 ? '-' : style.warn(r.fallbackZones.join(',')),
      ]
      if (opts.format === 'wide') row.push(r.sdOverload.toFixed(4), pct(r.unservedTraffic), r.fallback ?? '-')
      return row
    })
    out.push(formatTable(opts.noHeaders ? null : header, rows))
    if (ranked.some((r) => isResearch(r.strategy))) out.push(style.dim(RESEARCH_LEGEND))
    if (svc.recommendation !== undefined) out.push(recommendationText(svc, report.whatIf.length > 0, style))
    if (opts.format === 'wide') {
      out.push('')
      out.push(formatTable(opts.noHeaders ? null : ['STRATEGY', 'ZONE', 'TRAFFIC', 'IN-ZONE', 'SERVES', 'LOAD', 'MAX-OVERLOAD', 'FALLBACK'], wideZoneRows(ranked)))
    } else if (style.level > 0) {
      out.push('')
      out.push(...zoneBars(ranked.slice(0, 3), style))
    }
    for (const r of ranked) if (r.clients !== undefined) out.push('', ...clientRoutes(r, opts.noHeaders === true, style))
    if (svc.rollout) {
      out.push('')
      out.push(svc.rolloutParameters ? `${style.bold('Rollout')} ${rolloutText(svc.rolloutParameters)}` : style.bold('Rollout'))
      for (const n of svc.rolloutParameters?.notes ?? []) out.push(`Note: ${n}`)
      const strategies = svc.rollout[0]?.strategies.map((s) => s.strategy) ?? []
      out.push(
        formatTable(
          opts.noHeaders ? null : ['STEP', 'ACTION', 'OLD', 'NEW-READY', 'NEW-NOT-READY', 'READY-BY-ZONE', 'HINTS', ...strategies.map((s) => `IN-ZONE(${s})`), 'FALLBACK-ZONES'],
          svc.rollout.map((st) => [
            String(st.step),
            st.action,
            String(st.oldPods),
            String(st.newReady),
            String(st.newNotReady),
            Object.entries(st.readyByZone)
              .map(([z, n]) => `${z || '(none)'}=${n}`)
              .join(','),
            st.hints === 'hold' ? style.ok('hold') : style.bad(`refused: ${st.hintsReason}`),
            ...st.strategies.map((s) => pct(s.inZoneTraffic)),
            [...new Set(st.strategies.flatMap((s) => s.fallbackZones))].join(',') || '-',
          ]),
        ),
      )
    }
    if (svc.disruption) {
      out.push('')
      out.push(style.bold('Per-zone disruption (pods a zone can lose)'))
      const strat = svc.disruption[0]?.strategy ?? 'Auto'
      out.push(
        formatTable(
          opts.noHeaders ? null : ['ZONE', 'READY', 'BEFORE-HINTS-DROP', 'BEFORE-NO-LOCAL-ENDPOINT', `BEFORE-FALLBACK(${strat})`],
          svc.disruption.map((d) => [
            d.zone,
            String(d.readyEndpoints),
            d.canLoseBeforeHintsDrop === null ? style.bad('dropped now') : String(d.canLoseBeforeHintsDrop),
            String(d.canLoseBeforeNoLocalEndpoint),
            d.canLoseBeforeFallback === null ? style.bad('falls back now') : String(d.canLoseBeforeFallback),
          ]),
        ),
      )
    }
    out.push('')
  }
  return out.join('\n').trimEnd()
}

/**
 * The advisor's recommendation in one line, as watch and check print it: simulate's rank is the
 * KEP-2004 score; what to set is the advisor's (the same as explain and plan say at this count).
 */
export function recommendationText(svc: ServiceReport, whatIf: boolean, style: Style): string {
  const r = svc.recommendation!
  const label = `Recommendation${whatIf ? ' (with the what-if)' : ''}: `
  const line = recommendationLine(r)
  return `${style.bold(label)}${r.meetsBound ? line : style.bad(line)}`
}

const pods = (n: number) => `${n} pod${n === 1 ? '' : 's'}`

/** "of deployment/web: RollingUpdate, replicas 9, maxSurge 25% (3 pods), maxUnavailable 25% (2 pods)". */
export function rolloutText(p: RolloutPlan): string {
  const who = p.workload === null ? `(--rollout): ${p.kind} ${p.type}` : `of ${p.kind === 'Deployment' ? 'deployment' : 'statefulset'}/${p.workload.name}: ${p.type}`
  const parts = [`replicas ${p.replicas}`]
  if (p.type === 'Recreate') parts.push('every old pod goes before the new ones are created')
  if (p.partition !== null) parts.push(`partition ${p.partition}`)
  if (p.maxSurge !== null) parts.push(`maxSurge ${p.maxSurge} (${pods(p.resolved.maxSurge)})`)
  if (p.maxUnavailable !== null) parts.push(`maxUnavailable ${p.maxUnavailable} (${pods(p.resolved.maxUnavailable)})`)
  const overridden = p.workload !== null && p.overridden.length > 0 ? `; from --rollout: ${p.overridden.join(', ')}` : ''
  return `${who}, ${parts.join(', ')}${overridden}`
}

/** topology-keys --per-node: one row per client node, the key that matched and the endpoints it uses. */
function clientRoutes(r: StrategyResult, noHeaders: boolean, style: Style): string[] {
  const rows = (r.clients ?? []).map((c) => [
    c.node,
    c.zone === '' ? '(no zone)' : c.zone,
    c.matchedKey === null ? style.bad('none: no backends') : c.matchedKey,
    String(c.endpoints.length),
    c.endpoints.join(',') || '-',
  ])
  return [style.bold(`${strategyLabel(r.strategy)}: routes per client node`), formatTable(noHeaders ? null : ['NODE', 'ZONE', 'MATCHED-KEY', 'ENDPOINTS', 'ADDRESSES'], rows)]
}

function wideZoneRows(ranked: StrategyResult[]): string[][] {
  const rows: string[][] = []
  for (const r of ranked) {
    for (const z of r.zones) {
      rows.push([
        strategyLabel(r.strategy),
        z.zone === '' ? '(no zone)' : z.zone,
        pct(z.trafficShare),
        pct(z.inZoneTraffic),
        Object.entries(z.serves)
          .map(([k, v]) => `${k || '(none)'}:${v}`)
          .join(',') || '-',
        pct(z.load),
        z.maxOverload === null ? '-' : pct(z.maxOverload),
        z.fallback ? (z.reason ?? 'yes') : '-',
      ])
    }
  }
  return rows
}

function zoneBars(top: StrategyResult[], style: Style): string[] {
  const out: string[] = []
  for (const r of top) {
    out.push(style.bold(`${strategyLabel(r.strategy)}: in-zone traffic per zone`))
    for (const z of r.zones) {
      if (z.zone === '') continue
      out.push(`  ${z.zone.padEnd(16)} ${style.ok(bar(z.inZoneTraffic))} ${pct(z.inZoneTraffic).padStart(6)}${z.fallback ? style.warn(`  fallback: ${z.reason ?? ''}`) : ''}`)
    }
  }
  return out
}

function csvCell(v: string | number | null): string {
  return v === null ? '' : typeof v === 'number' ? String(v) : csvText(v)
}

const CSV_HEADER = [
  'namespace',
  'service',
  'strategy',
  'valid',
  'score',
  'inZoneTraffic',
  'maxOverload',
  'meanOverload',
  'sdOverload',
  'endpointSlices',
  'fallbackZones',
  'fallback',
  'research',
]

function csvOfReport(report: SimulateReport, noHeaders: boolean): string {
  const lines = noHeaders ? [] : [CSV_HEADER.join(',')]
  for (const svc of report.services) {
    for (const r of rank(svc.strategies)) {
      lines.push(
        [
          svc.namespace,
          svc.name,
          r.strategy,
          String(r.valid),
          r.score === null ? null : r.score.toFixed(4),
          r.inZoneTraffic.toFixed(6),
          r.maxOverload.toFixed(6),
          r.meanOverload.toFixed(6),
          r.sdOverload.toFixed(6),
          r.endpointSlices,
          r.fallbackZones.join(' '),
          r.fallback,
          String(isResearch(r.strategy)),
        ]
          .map(csvCell)
          .join(','),
      )
    }
  }
  return lines.join('\n')
}

// ---- datasets ----------------------------------------------------------------------------------

/** The tool's per-row output columns (process/output-parser.go), plus the strategy. */
export const ROW_CSV_HEADER = ['input name', 'strategy', 'score', 'in-zone-traffic score', 'deviation score', 'slice score', 'max deviation', 'mean deviation', 'SD of deviation']

export function rowCsv(r: RowScore): string {
  const cells: (string | null)[] = [r.row, r.strategy]
  if (r.score === null) cells.push(...Array(7).fill('invalid'))
  else {
    // formatted as the tool formats them (strconv.FormatFloat 'f' 4: ties to even)
    const f4 = (x: number) => goFormatFixed(x, 4)
    cells.push(
      f4(r.score.score),
      f4(r.score.inZoneScore),
      f4(r.score.deviationScore),
      f4(r.score.sliceScore),
      `${f4(r.measures.maxOverload * 100)}%`,
      `${f4(r.measures.meanOverload * 100)}%`,
      f4(r.measures.sdOverload),
    )
  }
  return cells.map(csvCell).join(',')
}

/** The tool's data/results.csv columns. */
const AGGREGATE_CSV_HEADER = [
  'alg name',
  'invalid cases',
  'valid cases',
  'mean total score',
  'max total score',
  'min total score',
  'mean inzone score',
  'max inzone score',
  'min inzone score',
  'mean deviation score',
  'max deviation score',
  'min deviation score',
  'mean slice score',
  'max slice score',
  'min slice score',
  'max deviation %',
  'average max deviation %',
]

export function renderDataset(raw: DatasetReport, opts: {format: SimulateFormat; noHeaders?: boolean}): string {
  if (opts.format === 'json') return jsonText(raw)
  if (opts.format === 'yaml') return yamlText(raw, {lineWidth: 0}).trimEnd()
  const report = escapeDeep(raw)
  const f2 = (v: number) => v.toFixed(2)
  if (opts.format === 'csv') {
    const lines = opts.noHeaders ? [] : [AGGREGATE_CSV_HEADER.join(',')]
    for (const a of report.aggregates) {
      lines.push(
        [
          a.strategy,
          a.invalid,
          a.clusters,
          f2(a.score.mean),
          f2(a.score.max),
          f2(a.score.min),
          f2(a.inZoneScore.mean),
          f2(a.inZoneScore.max),
          f2(a.inZoneScore.min),
          f2(a.deviationScore.mean),
          f2(a.deviationScore.max),
          f2(a.deviationScore.min),
          f2(a.sliceScore.mean),
          f2(a.sliceScore.max),
          f2(a.sliceScore.min),
          `${f2(a.maxOverload * 100)}%`,
          `${f2(a.meanMaxOverload * 100)}%`,
        ].join(','),
      )
    }
    return lines.join('\n')
  }
  const sorted = [...report.aggregates].sort((a, b) => b.score.mean - a.score.mean)
  const header = ['RANK', 'STRATEGY', 'CLUSTERS', 'INVALID', 'MEAN-SCORE', 'MEAN-IN-ZONE', 'MEAN-DEVIATION-SCORE', 'MEAN-SLICE-SCORE', 'MAX-OVERLOAD', 'AVG-MAX-OVERLOAD']
  if (opts.format === 'wide') header.push('MIN-SCORE', 'MAX-SCORE')
  const rows = sorted.map((a, i) => {
    const row = [
      String(i + 1),
      strategyLabel(a.strategy),
      String(a.clusters),
      String(a.invalid),
      f2(a.score.mean),
      f2(a.inZoneScore.mean),
      f2(a.deviationScore.mean),
      f2(a.sliceScore.mean),
      pct(a.maxOverload, 2),
      pct(a.meanMaxOverload, 2),
    ]
    if (opts.format === 'wide') row.push(f2(a.score.min), f2(a.score.max))
    return row
  })
  const legend = sorted.some((a) => isResearch(a.strategy)) ? `\n${RESEARCH_LEGEND}` : ''
  return (
    `Dataset ${report.dataset}${report.seed !== null ? ` (seed ${report.seed})` : ''}: ${report.clusters} clusters\n` + formatTable(opts.noHeaders ? null : header, rows) + legend
  )
}

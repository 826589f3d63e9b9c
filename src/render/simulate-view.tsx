// The terminal view of `simulate` (ink + react), drawn once: per Service, the ranked table,
// then per strategy and zone two bars (in-zone traffic; the zone's busiest endpoint against
// an equal share of all traffic), then the rollout and disruption tables in a compact form.
// Made for 80 columns and readable without colour (the bars use two glyphs). Loaded ONLY by
// simulate on a terminal with the default table output (chooseSimulateView in simulate.ts),
// with `await import('./simulate-view.js')`; ink and react are imported statically
// here (docs/design.md: a dynamic import of a CommonJS package from a split chunk exposes
// only `default`).
import {Box, renderToString, Text} from 'ink'
import type {RolloutStepResult, StrategyResult, ZoneDisruption, ZoneResult} from '../simulate/simulate.js'
import {rank} from '../simulate/simulate.js'
import {isResearch} from '../simulate/names.js'
import {RESEARCH_LEGEND, recommendationText, rolloutText, strategyLabel, type ServiceReport, type SimulateReport} from './simulate.js'
import {escapeDeep} from './escape.js'
import type {Style} from './style.js'
import {displayWidth, tableLines} from './table.js'

export interface SimulateViewProps {
  report: SimulateReport
  style: Style
  /** Terminal width (default 80). */
  columns?: number
  /** Bars for every strategy (the user chose them with --strategies); otherwise the top 3. */
  allStrategies?: boolean
}

const FULL = '█'
const OVER = '▓'
const EMPTY = '·'
const MARK = '│'

const pct = (v: number) => `${Math.round(v * 100)}%`
const pct1 = (v: number) => `${(v * 100).toFixed(1)}%`
const signed = (v: number) => {
  const n = Math.round(v * 100)
  return n > 0 ? `+${n}%` : `${n}%`
}
const padStart = (s: string, w: number) => ' '.repeat(Math.max(0, w - displayWidth(s))) + s

/** Columns two spaces apart (render/table.ts's layout, as kubectl's but tighter for 80 columns). */
const alignColumns = (rows: string[][], align: ('l' | 'r')[] = []): string[] => tableLines(rows, {gap: 2, align})

/** A share 0..1 as `width` cells of █ and ·. */
export function shareBar(share: number, width: number, style: Style): string {
  const n = Math.max(0, Math.min(width, Math.round(share * width)))
  return style.ok(FULL.repeat(n)) + style.dim(EMPTY.repeat(width - n))
}

/**
 * A load against an equal share: the bar spans 0..2x the equal share, whose place is the
 * middle; █ up to it, ▓ beyond it (overload), │ marks it when the bar stops short of it.
 */
export function loadBar(ratio: number, width: number, style: Style): string {
  const half = Math.floor(width / 2)
  const cells = Math.max(0, Math.min(width, Math.round(ratio * half)))
  const under = Math.min(cells, half)
  const over = cells - under
  const overText = OVER.repeat(over)
  let out = style.ok(FULL.repeat(under)) + (ratio > 1.5 ? style.bad(overText) : style.warn(overText))
  const rest = width - cells
  if (cells < half) out += style.dim(EMPTY.repeat(half - cells)) + MARK + style.dim(EMPTY.repeat(Math.max(0, rest - (half - cells) - 1)))
  else out += style.dim(EMPTY.repeat(rest))
  return out
}

/** "3 local" / "2 local + 1": the endpoints a zone's clients may reach. */
function servedBy(z: ZoneResult): string {
  const local = z.serves[z.zone] ?? 0
  const remote = Object.entries(z.serves).reduce((a, [k, v]) => (k === z.zone ? a : a + v), 0)
  return remote === 0 ? `${local} local` : `${local} local + ${remote}`
}

/** The ranked table; FALLBACK-ZONES shows the zones when they fit, else how many. */
function rankedRows(ranked: StrategyResult[], style: Style, width: number): string[] {
  const cells = ranked.map((r, i) => [
    String(i + 1),
    strategyLabel(r.strategy),
    r.score === null ? style.bad('invalid') : r.score.toFixed(2),
    pct1(r.inZoneTraffic),
    `${r.maxOverload > 0.5 ? style.bad(pct1(r.maxOverload)) : r.maxOverload > 0.2 ? style.warn(pct1(r.maxOverload)) : pct1(r.maxOverload)} / ${pct1(r.meanOverload)}`,
    String(r.endpointSlices),
  ])
  const header = ['#', 'STRATEGY', 'SCORE', 'IN-ZONE', 'OVERLOAD MAX / MEAN', 'SLICES', 'FALLBACK-ZONES']
  const used = alignColumns([header.slice(0, -1), ...cells]).reduce((a, l) => Math.max(a, displayWidth(l)), 0) + 2
  const room = Math.max(8, width - used)
  const fallback = ranked.map((r) => {
    if (r.fallbackZones.length === 0) return '-'
    const names = r.fallbackZones.join(',')
    return style.warn(names.length <= room ? names : `${r.fallbackZones.length} zones`)
  })
  return alignColumns([header, ...cells.map((c, i) => [...c, fallback[i]!])], ['r', 'l', 'r', 'r', 'r', 'r', 'l'])
}

/** Per zone: traffic share, endpoints its clients reach, in-zone bar, busiest-endpoint bar. */
function zoneRows(r: StrategyResult, style: Style, bar: number): {rows: string[]; notes: Map<number, string>} {
  const zones = r.zones.filter((z) => z.zone !== '' || z.localEndpoints > 0)
  const notes = new Map<number, string>()
  const cells = zones.map((z, i) => {
    // Zone by zone only what the strategy's own line (r.fallback) does not already say.
    if (z.fallback && z.reason !== r.fallback) notes.set(i, `${z.zone || '(no zone)'} falls back: ${z.reason ?? 'no topology'}`)
    const load = z.maxOverload === null ? style.dim('no endpoints') : `${loadBar(1 + z.maxOverload, bar, style)} ${padStart(signed(z.maxOverload), 5)}`
    return [z.zone || '(no zone)', pct(z.trafficShare), servedBy(z), `${shareBar(z.inZoneTraffic, bar, style)} ${padStart(pct(z.inZoneTraffic), 4)}`, load]
  })
  const rows = alignColumns([['ZONE', 'TRAFFIC', 'SERVED BY', 'IN-ZONE', 'BUSIEST ENDPOINT'], ...cells], ['l', 'r', 'l', 'l', 'l'])
  return {rows, notes}
}

/** Bar width for a terminal: what is left after the fixed columns, split between the two bars. */
function barWidth(svc: ServiceReport, width: number): number {
  const zoneW = Math.max(4, ...svc.input.zones.map((z) => (z === '' ? 9 : z.length)))
  const fixed = 2 + zoneW + 2 + 7 + 2 + 14 + 2 + 5 + 2 + 6
  return Math.max(6, Math.min(20, Math.floor((width - fixed) / 2)))
}

function StrategyBars({r, position, style, bar}: {r: StrategyResult; position: number; style: Style; bar: number}) {
  const {rows, notes} = zoneRows(r, style, bar)
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        {style.bold(strategyLabel(r.strategy))}
        {`  rank ${position}, score ${r.score === null ? 'invalid' : r.score.toFixed(2)}`}
      </Text>
      {r.fallback !== null ? <Text wrap="wrap">{`  ${style.warn(r.fallback)}`}</Text> : null}
      {rows.map((line, i) => (
        <Box key={i} flexDirection="column">
          <Text wrap="truncate-end">{`  ${line}`}</Text>
          {i > 0 && notes.has(i - 1) ? <Text wrap="wrap">{`    ${style.warn(notes.get(i - 1)!)}`}</Text> : null}
        </Box>
      ))}
    </Box>
  )
}

/**
 * The rollout, compact: ready endpoints per zone as a/b/c, whether Auto keeps hints
 * (the reasons listed once, below), the in-zone share of each strategy. Strategy columns are
 * headed by their names when they fit, else S1, S2... with a legend, else as many as fit.
 */
function rolloutRows(steps: RolloutStepResult[], zones: string[], style: Style, width = 80): {rows: string[]; reasons: string[]; legend: string | null; left: string[]} {
  const strategies = steps[0]?.strategies.map((s) => s.strategy) ?? []
  const reasons: string[] = []
  const base = steps.map((st) => {
    let hints = style.ok('yes')
    if (st.hints === 'refused') {
      const reason = st.hintsReason ?? 'refused'
      let k = reasons.indexOf(reason)
      if (k < 0) k = reasons.push(reason) - 1
      hints = style.bad(`no (${k + 1})`)
    }
    return [
      String(st.step),
      st.action,
      String(st.oldPods),
      st.newNotReady > 0 ? `${st.newReady}+${st.newNotReady}` : String(st.newReady),
      zones.map((z) => String(st.readyByZone[z] ?? 0)).join('/'),
      hints,
    ]
  })
  const head = ['STEP', 'ACTION', 'OLD', 'NEW', 'READY', 'HINTS']
  const align: ('l' | 'r')[] = ['r', 'l', 'r', 'r', 'l', 'l']
  const build = (n: number, labels: string[]) =>
    alignColumns(
      [[...head, ...labels.slice(0, n)], ...base.map((b, i) => [...b, ...steps[i]!.strategies.slice(0, n).map((s) => pct1(s.inZoneTraffic))])],
      [...align, ...labels.slice(0, n).map(() => 'r' as const)],
    )
  const fits = (rows: string[]) => rows.every((l) => displayWidth(l) <= width)
  const names = strategies.length === 1 ? ['IN-ZONE'] : strategies.map((s) => `IN-ZONE ${s}`)
  let rows = build(strategies.length, names)
  if (fits(rows)) return {rows, reasons, legend: null, left: []}
  const short = strategies.map((_, i) => `S${i + 1}`)
  let n = strategies.length
  rows = build(n, short)
  while (n > 1 && !fits(rows)) rows = build(--n, short)
  return {
    rows,
    reasons,
    legend: `IN-ZONE of ${strategies
      .slice(0, n)
      .map((s, i) => `S${i + 1} ${s}`)
      .join(', ')}`,
    left: strategies.slice(n),
  }
}

function disruptionRows(d: ZoneDisruption[], style: Style): string[] {
  const strat = d[0]?.strategy ?? 'Auto'
  return alignColumns(
    [
      ['ZONE', 'READY', 'HINTS-DROP', 'NO-LOCAL-ENDPOINT', `FALLBACK ${strat}`],
      ...d.map((z) => [
        z.zone,
        String(z.readyEndpoints),
        z.canLoseBeforeHintsDrop === null ? style.bad('now') : String(z.canLoseBeforeHintsDrop),
        String(z.canLoseBeforeNoLocalEndpoint),
        z.canLoseBeforeFallback === null ? style.bad('now') : String(z.canLoseBeforeFallback),
      ]),
    ],
    ['l', 'r', 'r', 'r', 'r'],
  )
}

function ServiceView({svc, report, style, width, allStrategies}: {svc: ServiceReport; report: SimulateReport; style: Style; width: number; allStrategies: boolean}) {
  const ranked = rank(svc.strategies)
  const shown = allStrategies ? ranked : ranked.slice(0, 3)
  const bar = barWidth(svc, width)
  const zones = svc.input.zones.filter((z) => z !== '' || (svc.input.endpointsByZone[z] ?? 0) > 0)
  const rollout = svc.rollout ? rolloutRows(svc.rollout, zones, style, width) : null
  return (
    <Box flexDirection="column" marginBottom={1}>
      <Text wrap="wrap">
        {style.bold(`Service ${svc.namespace}/${svc.name}`)}
        {` · ${svc.input.readyEndpoints} ready endpoints · traffic model ${report.trafficModel}`}
      </Text>
      <Box flexWrap="wrap" columnGap={2}>
        {zones.map((z) => (
          <Text key={z}>{style.dim(`${z || '(no zone)'} ${svc.input.endpointsByZone[z] ?? 0} ep / ${pct(svc.input.trafficShare[z] ?? 0)} traffic`)}</Text>
        ))}
      </Box>
      {report.whatIf.length > 0 ? <Text wrap="wrap">{`What-if: ${report.whatIf.join('; ')}`}</Text> : null}
      <Box flexDirection="column" marginTop={1}>
        {rankedRows(ranked, style, width).map((line, i) => (
          <Text key={i} wrap="truncate-end">
            {i === 0 ? style.bold(line) : line}
          </Text>
        ))}
        {ranked.some((r) => isResearch(r.strategy)) ? <Text wrap="wrap">{style.dim(RESEARCH_LEGEND)}</Text> : null}
        {svc.recommendation !== undefined ? <Text wrap="wrap">{recommendationText(svc, report.whatIf.length > 0, style)}</Text> : null}
      </Box>
      <Box marginTop={1}>
        <Text wrap="wrap">
          {style.dim(
            `Per zone: IN-ZONE = share of the zone's traffic served in the zone; BUSIEST ENDPOINT = load of the zone's busiest endpoint against an equal share of all traffic (${FULL} up to it, ${OVER} beyond: overload).`,
          )}
        </Text>
      </Box>
      {shown.map((r) => (
        <StrategyBars key={r.strategy} r={r} position={ranked.indexOf(r) + 1} style={style} bar={bar} />
      ))}
      {shown.length < ranked.length ? (
        <Box marginTop={1}>
          <Text wrap="wrap">
            {style.dim(`${ranked.length - shown.length} more ${ranked.length - shown.length === 1 ? 'strategy' : 'strategies'}: choose them with --strategies to see their zones.`)}
          </Text>
        </Box>
      ) : null}
      {svc.rollout && rollout ? (
        <Box flexDirection="column" marginTop={1}>
          <Text wrap="wrap">{svc.rolloutParameters ? `${style.bold('Rollout')} ${rolloutText(svc.rolloutParameters)}` : style.bold('Rollout')}</Text>
          {(svc.rolloutParameters?.notes ?? []).map((n, i) => (
            <Text key={i} wrap="wrap">{`Note: ${n}`}</Text>
          ))}
          <Text wrap="wrap">{style.dim(`READY: ready endpoints in ${zones.map((z) => z || '(no zone)').join('/')}; NEW: ready+not ready; HINTS: Auto keeps them`)}</Text>
          {rollout.legend !== null ? <Text wrap="wrap">{style.dim(rollout.legend)}</Text> : null}
          {rollout.rows.map((line, i) => (
            <Text key={i} wrap="truncate-end">
              {i === 0 ? style.bold(line) : line}
            </Text>
          ))}
          {rollout.reasons.map((reason, i) => (
            <Text key={`r${i}`} wrap="wrap">{`(${i + 1}) refused: ${reason}`}</Text>
          ))}
          {rollout.left.length > 0 ? <Text wrap="wrap">{style.dim(`In-zone shares of ${rollout.left.join(', ')} at each step: --plain or -o json.`)}</Text> : null}
        </Box>
      ) : null}
      {svc.disruption ? (
        <Box flexDirection="column" marginTop={1}>
          <Text wrap="wrap">{`${style.bold('Per-zone disruption')}: pods a zone can lose before the hints drop, before it has no local endpoint, before the strategy falls back`}</Text>
          {disruptionRows(svc.disruption, style).map((line, i) => (
            <Text key={i} wrap="truncate-end">
              {i === 0 ? style.bold(line) : line}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  )
}

/** The whole output: a pure function of its props. */
export function SimulateView({report: raw, style, columns: width = 80, allStrategies = false}: SimulateViewProps) {
  const report = escapeDeep(raw)
  return (
    <Box flexDirection="column">
      {report.services.map((svc) => (
        <ServiceView key={`${svc.namespace}/${svc.name}/${svc.addressType}`} svc={svc} report={report} style={style} width={width} allStrategies={allStrategies} />
      ))}
    </Box>
  )
}

/** Renders the view once, as text for stdout (no cursor movement, no input: the command exits after). */
export function renderSimulateView(props: SimulateViewProps): string {
  return renderToString(<SimulateView {...props} />, {columns: props.columns ?? 80}).trimEnd()
}

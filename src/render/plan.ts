// Printers for `plan`: per Service a row of marks per replica count and mode, the figures at
// today's count, rollouts, zone losses, the disruption a PDB allows, the recommendation with
// its commands, and the cross-zone cost; json / yaml print the report (schema/plan.v1.json).
// Formatting only: every figure comes from src/plan/.
import type {Figures, ModeFigures, PlanMode, PlanReport, ServicePlan} from '../plan/plan.js'
import {escapeDeep} from './escape.js'
import {PLAIN, type Style} from './style.js'
import {formatTable} from './table.js'
import {jsonText, yamlText} from './encode.js'
import {recommendationBlock} from './advice.js'
import {percent} from '../advise/format.js'

export type PlanFormat = 'table' | 'json' | 'yaml'

export interface PlanRenderOptions {
  format: PlanFormat
  style?: Style
  noHeaders?: boolean
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(x * 100) || 0}%`)
const MARKS_PER_LINE = 50

/** "+" hints kept within the bound, "!" kept but the worst overload is above it, "." no hints (every endpoint). */
function mark(f: Figures | undefined, bound: number): string {
  if (f === undefined) return ' '
  if (!f.hints) return '.'
  return f.maxOverload !== null && f.maxOverload > bound + 1e-9 ? '!' : '+'
}

function money(x: number | null): string {
  if (x === null) return '-'
  return x >= 100 ? x.toFixed(0) : x.toFixed(2)
}

function figureCell(f: Figures | undefined): string {
  if (f === undefined) return '-'
  return `${f.hints ? '' : 'no hints, '}${pct(f.inZone)} in-zone, overload ${pct(f.maxOverload)}`
}

function modesLine(m: ModeFigures, modes: readonly PlanMode[]): string {
  return modes
    .filter((x) => m[x] !== undefined)
    .map((x) => `${x}: ${figureCell(m[x])}`)
    .join('; ')
}

function servicePlan(p: ServicePlan, bound: number, style: Style, noHeaders: boolean): string[] {
  const lines: string[] = []
  const w = p.workload
  lines.push(style.bold(`Service ${p.namespace}/${p.name}`) + ` (mode now: ${p.currentMode}; ${p.readyEndpoints} ready endpoints)`)
  if (w) {
    const hpa = w.hpa ? `; HPA ${w.hpa.name} ${w.hpa.minReplicas}..${w.hpa.maxReplicas}` : '; no HPA'
    const pdb = w.pdb ? `; PDB ${w.pdb.name} allows ${w.pdb.allowedDisruptions} disruption(s)` : ''
    const spread = w.zoneSpread ? `zone spread maxSkew ${w.zoneSpread.maxSkew} ${w.zoneSpread.whenUnsatisfiable}` : 'no zone spread constraint'
    lines.push(`Workload:    ${w.kind.toLowerCase()}/${w.name}, ${w.replicas} replicas${hpa}${pdb}; ${spread}`)
  } else {
    lines.push('Workload:    none found behind the Service (no rollout figures)')
  }
  lines.push(`Range:       ${p.range.from}..${p.range.to} replicas (${p.range.source === 'hpa' ? "the HPA's bounds" : 'no HPA: 1 to 3x today'}), pods placed zone-balanced`)
  lines.push('')
  // Marks: one column per count, wrapped.
  const rows = p.range.rows
  const modeWidth = Math.max(...p.modes.map((m) => m.length), 'REPLICAS'.length)
  for (let i = 0; i < rows.length; i += MARKS_PER_LINE) {
    const chunk = rows.slice(i, i + MARKS_PER_LINE)
    lines.push(`${'REPLICAS'.padEnd(modeWidth)}  ${chunk[0]!.replicas}..${chunk.at(-1)!.replicas}`)
    for (const m of p.modes) lines.push(`${m.padEnd(modeWidth)}  ${chunk.map((r) => mark(r.modes[m], bound)).join('')}`)
    lines.push('')
  }
  lines.push(style.dim(`+ hints, worst overload within ${percent(bound)}   ! hints, overload above ${percent(bound)}   . no hints (every endpoint)`))
  lines.push('')
  const today = rows.find((r) => r.replicas === p.readyEndpoints)
  if (today) {
    const table = p.modes.map((m) => {
      const f = today.modes[m]
      const cost = p.cost.byMode.find((c) => c.mode === m)
      return [m, f?.hints ? 'yes' : 'no', pct(f?.inZone), pct(f?.maxOverload), pct(cost?.crossZoneShare), money(cost?.monthlyCost ?? null)]
    })
    lines.push(`At today's ${p.readyEndpoints} replicas (each mode as after a fresh sync):`)
    lines.push(formatTable(noHeaders ? null : ['MODE', 'HINTS', 'IN-ZONE', 'WORST OVERLOAD', 'CROSS-ZONE', 'COST/MONTH'], table))
    lines.push('')
  }
  for (const r of p.rollouts) {
    const dropped = p.modes.filter((m) => r.worst[m] && !r.worst[m]!.hints)
    lines.push(
      `Rollout at ${r.replicas} replicas (${r.at}), ${r.steps.length} steps: ${modesLine(r.worst, p.modes)}${dropped.length ? style.bad(` (hints lost at some step: ${dropped.join(', ')})`) : ''}`,
    )
  }
  if (p.rollouts.length) lines.push('')
  if (p.zoneLosses.length) {
    const lossModes = p.modes.filter((m) => m !== 'none')
    const header = ['REPLICAS', 'ZONE LOST', ...lossModes.flatMap((m) => [`${m} NOW`, `${m} RESCHEDULED`])]
    const table = p.zoneLosses.map((z) => [
      String(z.replicas),
      z.zone,
      ...lossModes.flatMap((m) => [figureCell(z.immediate[m]), z.rescheduled ? figureCell(z.rescheduled[m]) : 'no node left']),
    ])
    lines.push(formatTable(noHeaders ? null : header, table))
    lines.push('')
  }
  if (p.disruption) {
    lines.push(`Disruption: evicting ${p.disruption.evicted} pod(s) from ${p.disruption.zone} (the PDB's budget): ${modesLine(p.disruption.modes, p.modes)}`)
    lines.push('')
  }
  // Today's count: the advisor's recommendation, the same as explain's.
  const adv = p.recommendation
  lines.push(`${style.bold(`Recommendation at today's ${p.readyEndpoints} replicas`)} (as explain shows it):`)
  lines.push(...recommendationBlock(adv, style))
  // The extended verdict: the same bound and ranking over the range, rollouts and zone losses.
  const rec = p.extended
  lines.push(
    `${style.bold('Over the range, rollouts and zone losses:')} ${rec.mode}${rec.meetsBound ? '' : style.bad(` (nothing keeps the worst overload within ${percent(bound)})`)}`,
  )
  if (rec.differsFromToday !== null) lines.push(`  ${style.warn(rec.differsFromToday)}`)
  for (const s of rec.settings) lines.push(`  - ${s.kind} ${s.value}: ${s.why}`)
  for (const y of rec.why) lines.push(`  ${style.dim(y)}`)
  if (rec.commands.length) {
    lines.push('  To get there:')
    for (const c of rec.commands) lines.push(`    ${c}`)
  }
  const c = p.cost
  if (c.volumeBytes !== null) {
    lines.push(
      `Cross-zone cost per month: now ${money(c.now.monthlyCost)} (${pct(c.now.crossZoneShare)} of the traffic, with the hints live now), with ${c.recommended.mode} ${money(c.recommended.monthlyCost)} (${pct(c.recommended.crossZoneShare)})`,
    )
  } else {
    lines.push(
      `Cross-zone share: now ${pct(c.now.crossZoneShare)} (the hints live now), with ${c.recommended.mode} ${pct(c.recommended.crossZoneShare)} (--traffic-volume and --cross-zone-price give the cost)`,
    )
  }
  if (p.measured !== undefined) {
    const m = p.measured
    const mix = Object.entries(m.clientMix)
      .map(([z, v]) => `${z} ${pct(v)}`)
      .join(', ')
    lines.push(
      `Measured (${m.source}): ${m.crossZoneShare === null ? 'client mix only (no dst_zone in the answer)' : `${pct(m.crossZoneShare)} crossed zones (predicted with the hints live now: ${pct(m.crossZoneSharePredicted)})`}; clients ${mix}: every figure above uses this mix`,
    )
  }
  for (const n of p.notes) lines.push(style.dim(`note: ${n}`))
  for (const l of p.lint) lines.push(`${l.severity === 'error' ? style.bad('lint error') : style.warn('lint warning')} ${l.rule}: ${l.message}`)
  return lines
}

export function renderPlan(raw: PlanReport, opts: PlanRenderOptions): string {
  if (opts.format === 'json') return `${jsonText(raw)}\n`
  if (opts.format === 'yaml') return yamlText(raw, {aliasDuplicateObjects: false, lineWidth: 0})
  // Cluster text (names, zones, messages) escaped for the terminal before any colour is added.
  const report = escapeDeep(raw)
  const style = opts.style ?? PLAIN
  const out: string[] = []
  if (report.services.length === 0) return 'No Services matched.\n'
  report.services.forEach((p, i) => {
    if (i > 0) out.push('')
    out.push(...servicePlan(p, report.maxOverload, style, opts.noHeaders === true))
  })
  return `${out.join('\n')}\n`
}

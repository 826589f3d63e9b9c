// Printers for `apply` and `reset`: the readable diff of a change set (per Service field,
// per slice and endpoint: old -> new hints), the outcome lines, and JSON. Formatting only.
import type {ApplyReport} from '../apply/report.js'
import type {ChangeSet, HintNames} from '../apply/plan.js'
import type {HintDifference} from '../apply/wait.js'
import {escapeDeep} from './escape.js'
import {PLAIN, type Style} from './style.js'
import {formatTable} from './table.js'
import {jsonText} from './encode.js'

const value = (v: string | null) => (v === null ? '<unset>' : JSON.stringify(v))

const hintText = (h: HintNames | null) => {
  if (h === null || (h.forZones.length === 0 && h.forNodes.length === 0)) return '<none>'
  const z = h.forZones.length ? `zones=${h.forZones.join(',')}` : ''
  const n = h.forNodes.length ? `nodes=${h.forNodes.join(',')}` : ''
  return [z, n].filter(Boolean).join(' ')
}

/** The diff, kubectl-diff-like: "~" changed, "+" set, "-" removed. Empty string when nothing changes. */
export function renderChanges(raw: ChangeSet, style: Style = PLAIN): string {
  const c = escapeDeep(raw)
  const lines: string[] = []
  if (c.serviceChanges.length > 0) {
    lines.push(style.bold(`Service ${c.namespace}/${c.service}`))
    for (const f of c.serviceChanges) {
      const sign = f.old === null ? '+' : f.new === null ? '-' : '~'
      const colour = sign === '-' ? style.bad : sign === '+' ? style.ok : style.changed
      lines.push(colour(`  ${sign} ${f.path}: ${value(f.old)} -> ${value(f.new)}`) + (f.reason ? style.dim(`   (${f.reason})`) : ''))
    }
  }
  for (const s of c.sliceChanges) {
    if (s.endpoints.length === 0) continue
    const owner = s.managedBy ? `managed by ${s.managedBy}` : 'no managed-by label'
    lines.push(style.bold(`EndpointSlice ${c.namespace}/${s.name}`) + style.dim(` (${s.addressType}, ${owner}; ${s.endpoints.length} of ${s.endpointCount} endpoints change)`))
    const rows = s.endpoints.map((e) => [
      `  ~ ${e.addresses.join(',')}`,
      e.nodeName ?? '<no node>',
      e.zone ?? '<no zone>',
      e.ready ? 'ready' : 'not ready',
      `${hintText(e.old)} -> ${style.changed(hintText(e.new))}`,
    ])
    lines.push(formatTable(null, rows))
  }
  return lines.join('\n')
}

export function renderDifferences(raw: readonly HintDifference[]): string {
  const diffs = escapeDeep(raw)
  return formatTable(
    ['', 'PREDICTED', 'LIVE'],
    diffs.map((d) => [d.subject, d.expected, d.actual]),
    {indent: '  '},
  )
}

export function renderApplyJson(r: ApplyReport): string {
  return `${jsonText(r)}\n`
}

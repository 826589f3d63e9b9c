// Printers for `nodes`: the zone table, the node table (every node with its verdict; -o wide
// adds whether the controller looked at it and the raw CPU), the nodes that disable hints for
// every Service with the fix, and json / yaml (schema/nodes.v1.json). Formatting only.
import type {NodeVerdict} from '../explain/node-verdicts.js'
import type {NodesReport} from '../explain/nodes-report.js'
import {escapeDeep} from './escape.js'
import {PLAIN, type Style} from './style.js'
import {formatTable} from './table.js'
import {jsonText, yamlText} from './encode.js'

export type NodesFormat = 'table' | 'wide' | 'json' | 'yaml'

export interface NodesRenderOptions {
  format: NodesFormat
  style?: Style
  noHeaders?: boolean
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`)
const cpu = (milli: number) => (milli % 1000 === 0 ? `${milli / 1000}` : `${milli}m`)

const STATUS_TEXT: Record<NodeVerdict['status'], string> = {
  counted: 'counted',
  'control-plane': 'ignored: control-plane',
  'not-ready': 'ignored: not Ready',
  'no-zone-label': 'no zone label: disables hints',
  'no-cpu': 'no allocatable CPU: disables hints',
}

export function renderNodes(raw: NodesReport, opts: NodesRenderOptions): string {
  if (opts.format === 'json') return `${jsonText(raw)}\n`
  if (opts.format === 'yaml') return yamlText(raw, {aliasDuplicateObjects: false, lineWidth: 0})
  const report = escapeDeep(raw)
  const style = opts.style ?? PLAIN
  const lines: string[] = []
  const a = report.auto
  lines.push(`topology-mode Auto: ${a.possible ? style.ok('hints possible') : style.bad('hints disabled for every Service')}: ${a.message}`)
  const t = report.totals
  const ign = Object.entries(t.ignored)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
  lines.push(`Nodes: ${t.nodes} (${t.counted} counted${ign.length ? `, ${ign.join(', ')}` : ''}); counted allocatable CPU ${cpu(t.cpuMilli)}`)
  lines.push('')
  if (report.zones.length > 0) {
    const rows = report.zones.map((z) => [z.name, String(z.counted), String(z.ignored), cpu(z.cpuMilli), pct(z.cpuRatio)])
    lines.push(formatTable(opts.noHeaders ? null : ['ZONE', 'COUNTED', 'IGNORED', 'CPU', 'CPU SHARE'], rows))
    lines.push('')
  }
  const wide = opts.format === 'wide'
  if (report.nodes.length === 0) lines.push('No nodes.')
  else {
    const header = wide ? ['NODE', 'ZONE', 'CPU', 'STATUS', 'EVALUATED', 'NOTE'] : ['NODE', 'ZONE', 'CPU', 'STATUS']
    const rows = report.nodes.map((n) => {
      const status = n.status === 'counted' ? style.ok(STATUS_TEXT[n.status]) : n.disablesHints ? style.bad(STATUS_TEXT[n.status]) : style.dim(STATUS_TEXT[n.status])
      const row = [n.name, n.zone === null ? '<none>' : n.zone === '' ? '""' : n.zone, cpu(n.milliCPU), status]
      if (wide) row.push(n.processed ? 'yes' : 'no (controller stopped earlier)', n.cpuError ?? '')
      return row
    })
    lines.push(formatTable(opts.noHeaders ? null : header, rows))
  }
  if (report.disablingNodes.length > 0) {
    lines.push('')
    lines.push(style.bad(`These nodes disable topology-mode Auto hints for every Service:`))
    for (const d of report.disablingNodes) lines.push(`  - ${d.name} (${d.status}): ${d.fix}`)
  }
  if (report.cliffs.length > 0) {
    lines.push('')
    lines.push('Threshold cliffs:')
    for (const c of report.cliffs) lines.push(`  - ${style.warn(c.message)}`)
  }
  return `${lines.join('\n')}\n`
}

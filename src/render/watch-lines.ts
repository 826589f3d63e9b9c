// Text for `watch`: the one-line-per-change output used without a terminal, and the pieces
// the live ink view (watch-view.tsx) shows: the header, the zone table with changed cells
// highlighted, cliffs, changes and events. Formatting only: every figure comes from the
// watch model (src/watch/model.ts). No ink or react here: this module is loaded on
// every path of the command.
import type {ServiceExplanation, ZoneRow} from '../explain/report.js'
import type {EventObject} from '../upstream/api/types.js'
import type {Change, WatchFrame} from '../watch/model.js'
import {escapeDeep, escapeTerminal} from './escape.js'
import {PLAIN, type Style} from './style.js'
import {formatTable} from './table.js'
import {recommendationLine} from './advice.js'
import {percent} from '../advise/format.js'

/** Everything the live view shows; the command updates it, the view renders it. */
export interface WatchViewState {
  frame: WatchFrame
  /** The frame before the last update: cells that differ are highlighted. */
  previous: WatchFrame | null
  /** Newest last. */
  changes: {time: string; change: Change}[]
  /** Newest last. */
  events: {time: string; event: EventObject}[]
  /** Connection state, e.g. "watching" or "endpointslices: reconnecting in 2s (ECONNREFUSED)". */
  status: string
  updatedAt: string
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`)
const signedPct = (x: number | null) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`)
const num = (x: number | null) => (x === null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(2))

export function modeText(raw: ServiceExplanation): string {
  const e = escapeDeep(raw)
  if (!e.mode.managedByController) return 'not managed by the EndpointSlice controller (no selector)'
  switch (e.mode.path) {
    case 'topology-mode-auto':
      return `topology-mode ${e.mode.annotationValue}`
    case 'traffic-distribution':
      return `trafficDistribution ${e.mode.trafficDistribution}`
    default:
      return 'none (no topology-aware routing)'
  }
}

export function verdictText(e: ServiceExplanation, style: Style = PLAIN): string {
  const c = e.controller
  if (c.hintsSet) return style.ok('hints set')
  if (c.path === 'not-managed') return style.dim('not managed')
  if (c.path === 'none') return style.dim('no hints')
  return style.bad('hints dropped')
}

/**
 * The advisor's figures in one line, in the words of docs/advice.md: "in-zone 33% now, 100% after
 * the next sync; worst overload after the next sync 0%; advice: keep Auto: ...".
 */
function adviceLine(e: ServiceExplanation): string | null {
  const r = e.recommendation
  if (r === undefined) return null
  const inZone = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100) || 0}%`)
  const o = r.predicted.worstOverload
  const worst = o === null ? '-' : `${percent(Math.max(0, o))}${r.predicted.worstZone !== null ? ` in ${r.predicted.worstZone}` : ''}`
  return `in-zone ${inZone(r.now.inZone)} now, ${inZone(r.predicted.inZone)} after the next sync; worst overload after the next sync ${worst}; advice: ${recommendationLine(r)}`
}

/** Per address type: "Service default/web (IPv4): topology-mode Auto: hints set: 9 ready endpoints in 3 zones", then its advice line. */
export function summaryLines(raw: WatchFrame): string[] {
  const frame = escapeDeep(raw)
  const ref = `Service ${frame.namespace}/${frame.name}`
  if (!frame.exists) return [`${ref}: not found (waiting for it to be created)`]
  return frame.explanations.flatMap((e) => {
    const advice = adviceLine(e)
    return [summaryLine(ref, e), ...(advice === null ? [] : [`${ref} (${e.addressType}): ${advice}`])]
  })
}

function summaryLine(ref: string, e: ServiceExplanation): string {
  {
    const zones = e.zones.filter((z) => z.nodes.counted > 0).length
    const why = e.controller.hintsSet || e.controller.path === 'none' || e.controller.path === 'not-managed' ? '' : ` (${e.controller.message})`
    const fallback = e.zones.filter((z) => z.kubeProxy.fallback).map((z) => z.name)
    const lint = e.lint.filter((l) => l.severity === 'error').map((l) => l.rule)
    return `${ref} (${e.addressType}): ${modeText(e)}: ${verdictText(e)}${why}: ${e.totals.readyEndpoints} ready endpoints, ${zones} zones with counted nodes${fallback.length ? `; kube-proxy falls back in ${fallback.join(', ')}` : ''}${lint.length ? `; lint: ${lint.join(', ')}` : ''}`
  }
}

/**
 * The first frame's lines without a terminal: the summary, the cliffs and the nodes that
 * disable hints, each after `time` (escaped: names and messages come from the cluster).
 */
export function firstFrameLines(time: string, frame: WatchFrame): string[] {
  const f = escapeDeep(frame)
  const t = escapeTerminal(time)
  return [
    ...summaryLines(f).map((l) => `${t}  ${l}`),
    ...f.cliffs.map((c) => `${t}  cliff: ${c.message}`),
    ...f.cluster.disablingNodes.map((d) => `${t}  node ${d.name} (${d.status}) disables hints for every Service: ${d.fix}`),
  ]
}

export function changeLine(time: string, c: Change): string {
  return `${escapeTerminal(time)}  ${escapeTerminal(c.message)}`
}

export function eventText(raw: EventObject): string {
  const e = escapeDeep(raw)
  const count = e.count && e.count > 1 ? ` (x${e.count})` : ''
  return `event ${e.type ?? 'Normal'} ${e.reason ?? ''}: ${e.message ?? ''}${count}`
}

export function eventLine(time: string, e: EventObject): string {
  return `${time}  ${eventText(e)}`
}

const toneStyle = (tone: Change['tone'], style: Style) => (tone === 'good' ? style.ok : tone === 'bad' ? style.bad : (s: string) => s)

export function styledChange(c: Change, style: Style): string {
  return toneStyle(c.tone, style)(escapeTerminal(c.message))
}

function proxyCell(z: ZoneRow): string {
  const v = z.kubeProxy
  if (v.fallback) return `falls back (${v.reason})`
  if (v.mode === '') return 'no hints'
  // As explain's table: nodes, not endpoints.
  return v.nodesPreferSameNode > 0 ? `uses hints (node-local on ${v.nodesPreferSameNode} node${v.nodesPreferSameNode === 1 ? '' : 's'})` : 'uses hints'
}

/** The per-zone table of the live view; a cell that differs from the previous frame is highlighted. */
export function zoneTable(rawE: ServiceExplanation, rawPrevious: ServiceExplanation | undefined, style: Style = PLAIN): string {
  const e = escapeDeep(rawE)
  const previous = escapeDeep(rawPrevious)
  const header = ['ZONE', 'NODES', 'CPU SHARE', 'READY', 'MIN', 'MAX', 'ASSIGNED', 'LIVE HINTS', 'OVERLOAD', 'KUBE-PROXY']
  const cells = (z: ZoneRow) => [
    z.name,
    `${z.nodes.counted}/${z.nodes.ignored}`,
    pct(z.cpuRatio),
    String(z.readyEndpoints),
    num(z.minimum),
    num(z.maximum),
    String(z.assigned),
    String(z.liveHints),
    signedPct(z.expectedOverload),
    proxyCell(z),
  ]
  const before = new Map((previous?.zones ?? []).map((z) => [z.name, cells(z)]))
  const rows = e.zones.map((z) => {
    const now = cells(z)
    const old = before.get(z.name)
    return now.map((cell, i) => {
      const changed = previous !== undefined && (old === undefined || old[i] !== cell)
      let out = cell
      if (i === now.length - 1) out = z.kubeProxy.fallback ? style.bad(cell) : z.kubeProxy.mode === '' ? style.dim(cell) : style.ok(cell)
      else if (i === 8 && z.expectedOverload !== null && z.expectedOverload > 0.2) out = style.warn(cell)
      return changed ? style.changed(`*${out}`) : out
    })
  })
  return formatTable(header, rows)
}

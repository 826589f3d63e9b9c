// Printers for `explain`: the per-zone table (default), the per-endpoint table (-o wide),
// the per-node kube-proxy table (--per-node), and json / yaml. They format the model;
// every figure comes from src/explain/report.ts.
import type {EndpointRow, ExplainReport, HintNames, KubeProxyVerdict, MeasuredTrafficReport, ServiceExplanation, ZoneRow} from '../explain/report.js'
import {trafficBasis} from '../explain/traffic.js'
import {escapeDeep} from './escape.js'
import {dataPlaneLine} from '../dataplane/describe.js'
import {clientPathLines, routesLine} from './client-paths.js'
import {PLAIN, type Style} from './style.js'
import {recommendationBlock, worthSaying} from './advice.js'
import {formatTable} from './table.js'
import {jsonText, yamlText} from './encode.js'

export type ExplainFormat = 'table' | 'wide' | 'json' | 'yaml'

export interface RenderOptions {
  format: ExplainFormat
  style?: Style
  noHeaders?: boolean
  perNode?: boolean
}

export function renderExplain(raw: ExplainReport, opts: RenderOptions): string {
  if (opts.format === 'json') return `${jsonText(raw)}\n`
  if (opts.format === 'yaml') return yamlText(raw, {aliasDuplicateObjects: false, lineWidth: 0})
  // Only -o wide prints the endpoint rows: the table need not escape (copy) 50,000 of them (issue 14).
  const report = escapeDeep(opts.format === 'wide' ? raw : {...raw, services: raw.services.map((s) => ({...s, endpoints: []}))})
  const style = opts.style ?? PLAIN
  const parts: string[] = []
  // report.warnings: the command prints them on stderr, in every format (as kubectl prints warnings).
  if (report.dataPlane) parts.push(dataPlaneLine(report.dataPlane))
  if (report.routes) parts.push(routesLine(report.routes))
  if (report.services.length === 0) {
    parts.push('No Services found.')
    return `${parts.join('\n')}\n`
  }
  for (const svc of report.services) {
    parts.push(renderService(svc, report, opts, style))
  }
  return `${parts.join('\n\n')}\n`
}

const pct = (x: number | null, digits = 1) => (x === null ? '-' : `${(x * 100).toFixed(digits)}%`)
const num = (x: number | null, digits = 2) => (x === null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(digits))
const signedPct = (x: number | null) => (x === null ? '-' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`)
const cpu = (milli: number) => (milli % 1000 === 0 ? `${milli / 1000}` : `${milli}m`)

function modeLine(svc: ServiceExplanation): string {
  const m = svc.mode
  if (svc.applicability.type === 'ExternalName') return 'not managed by the EndpointSlice controller (type ExternalName)'
  if (!m.managedByController) return 'not managed by the EndpointSlice controller (no selector)'
  switch (m.path) {
    case 'topology-mode-auto':
      return `topology-mode Auto (annotation ${m.annotationKey}=${m.annotationValue})`
    case 'traffic-distribution':
      return `trafficDistribution ${m.trafficDistribution}`
    default:
      return 'none (no topology-aware routing; hints removed)'
  }
}

/** The verdict column: named after the data plane when it is not kube-proxy (the JSON keeps kubeProxy). */
const PLANE_COLUMN: Record<string, string> = {
  cilium: 'CILIUM',
  calico: 'CALICO',
  antrea: 'ANTREA',
  'kube-router': 'KUBE-ROUTER',
  'ovn-kubernetes': 'OVN-KUBERNETES',
  'kube-ovn': 'KUBE-OVN',
}
const proxyColumn = (report: ExplainReport) => PLANE_COLUMN[report.dataPlane?.name ?? ''] ?? 'KUBE-PROXY'

function proxyCell(v: KubeProxyVerdict, style: Style, hasNodes = true): string {
  if (v.reason === 'not-proxied') return style.dim('not proxied')
  if (!hasNodes || v.reason === 'no-nodes') return style.dim('no nodes')
  if (v.reason === 'ignored-by-data-plane') return style.bad('ignores hints')
  if (v.fallback) return style.bad(`falls back (${v.reason})`)
  if (v.mode === '') return style.dim('no hints')
  // Nodes, not endpoints: on that many nodes traffic stays on the node (PreferSameNode's node hints).
  const node = v.nodesPreferSameNode > 0 ? ` (node-local on ${v.nodesPreferSameNode} node${v.nodesPreferSameNode === 1 ? '' : 's'})` : ''
  return style.ok(`uses hints${node}`)
}

function renderService(svc: ServiceExplanation, report: ExplainReport, opts: RenderOptions, style: Style): string {
  const lines: string[] = []
  const title = `Service ${svc.namespace}/${svc.name} (${svc.addressType})`
  lines.push(style.bold(title))
  if (svc.dataPlane) {
    lines.push(`Data plane:  ${svc.dataPlane.ignoresHints ? style.bad(svc.dataPlane.message) : style.warn(svc.dataPlane.message)}`)
    if (svc.dataPlane.fix) lines.push(style.dim(`             fix: ${svc.dataPlane.fix}`))
  }
  // Nodes whose older kube-proxy treats this Service differently (version skew; escaped above).
  for (const k of svc.kubeProxySkew ?? []) lines.push(`kube-proxy:  ${style.warn(k.message)}`)
  if (svc.clientPaths) lines.push(...clientPathLines(svc.clientPaths, style))
  lines.push(`Mode:        ${modeLine(svc)}`)
  for (const why of svc.mode.why) lines.push(style.dim(`             ${why}`))
  const c = svc.controller
  const verdict = c.hintsSet ? style.ok('hints set') : c.path === 'not-managed' ? style.dim('not managed') : c.path === 'none' ? style.dim('no hints') : style.bad('hints dropped')
  lines.push(`Controller:  ${verdict}: ${c.reason}: ${c.message}`)
  if (c.mayRecord !== undefined) {
    const e = c.mayRecord
    lines.push(
      style.warn(`             may record ${e.type} ${e.reason}: ${e.message} (only if it marked the Service "hints populated", which cannot be known without its Events)`),
    )
  }
  const others = svc.totals.readyEndpoints - c.totalReadyEndpoints
  const counted =
    c.path === 'not-managed' || others === 0
      ? `${svc.totals.readyEndpoints} ready endpoints`
      : `${c.totalReadyEndpoints} ready endpoints in the controller's slices, ${others} in slices it does not manage`
  lines.push(`             ${counted}; Kubernetes ${report.kubernetesVersion} (${report.versionSource})`)
  if (svc.applicability.statement !== null) lines.push(`Applies:     ${svc.applicability.statement}`)
  const t = svc.traffic
  // Without a figure (no ready endpoint) there is no share to state: no "- of requests" line.
  if (t.model !== 'none' && (t.inZoneShareLive !== null || t.inZoneSharePredicted !== null)) {
    const basis = trafficBasis(t.model)
    const now = pct(t.inZoneShareLive, 0)
    const next = pct(t.inZoneSharePredicted, 0)
    lines.push(`In-zone:     ${now} of requests stay in their zone now${now === next ? '' : `, ${next} after the next sync`} (${basis})`)
  }
  if (t.measured !== undefined) lines.push(measuredLine(t.measured))
  lines.push('')
  // -o wide adds columns to the zone table, as kubectl's does, then lists the endpoints.
  lines.push(zoneTable(svc, opts, style, proxyColumn(report)))
  if (opts.format === 'wide') {
    lines.push('')
    lines.push(endpointTable(svc.endpoints, opts, style))
  }
  if (opts.perNode && svc.nodes) {
    lines.push('')
    // Each node's kube-proxy version, when its Pods were read.
    const versions = svc.nodes.some((n) => n.kubeProxyVersion !== undefined)
    const rows = svc.nodes.map((n) => [
      n.name,
      n.zone ?? '<none>',
      ...(versions ? [n.kubeProxyVersion ?? '-'] : []),
      n.mode === '' ? '-' : n.mode,
      n.reason === 'not-proxied'
        ? style.dim('not proxied')
        : n.reason === 'ignored-by-data-plane'
          ? style.bad('ignores hints')
          : n.fallback
            ? style.bad(`falls back (${n.reason})`)
            : n.mode === ''
              ? style.dim('no hints')
              : style.ok('uses hints'),
      n.endpoints.join(',') || '<none>',
    ])
    lines.push(formatTable(opts.noHeaders ? null : ['NODE', 'ZONE', ...(versions ? ['VERSION'] : []), 'MODE', proxyColumn(report), 'ENDPOINTS'], rows))
  }
  const rec = svc.recommendation !== undefined && worthSaying(svc.recommendation) ? svc.recommendation : null
  if (svc.advice.length > 0 || rec !== null) {
    lines.push('')
    lines.push('What to do:')
    if (rec !== null) lines.push(...recommendationBlock(rec, style))
    for (const a of svc.advice) {
      lines.push(`  - ${a.message}`)
      if (a.command) lines.push(`      ${a.command}`)
    }
  }
  return lines.join('\n')
}

/**
 * The per-zone table. NODES are the nodes the controller counts, IGNORED the ones it leaves out
 * (not Ready, control plane, no zone or CPU: `kubectl topology nodes` names them). -o wide adds
 * TRAFFIC (the share assumed to start in the zone), TARGET (upstream's target before rounding)
 * and the data plane's verdict once the predicted hints are written.
 */
/** The measured cross-zone share next to the predicted one (explain --traffic-from). */
function measuredLine(m: MeasuredTrafficReport): string {
  const mix = Object.entries(m.clientMix)
    .map(([z, v]) => `${z} ${pct(v, 0)}`)
    .join(', ')
  const cross =
    m.crossZoneShare === null
      ? 'client mix only (no dst_zone in the answer)'
      : `${pct(m.crossZoneShare, 1)} crossed zones, ${pct(m.crossZoneSharePredicted, 1)} predicted with the live hints`
  return `Measured:    ${cross}; clients ${mix} (${m.source})`
}

function zoneTable(svc: ServiceExplanation, opts: RenderOptions, style: Style, proxyHeader = 'KUBE-PROXY'): string {
  const wide = opts.format === 'wide'
  const header = ['ZONE', 'NODES', 'IGNORED', 'CPU', 'CPU SHARE', 'READY', 'DESIRED', 'MIN', 'MAX', 'ASSIGNED', 'OVERLOAD', 'DONATED', 'LIVE HINTS', proxyHeader]
  if (wide) header.push('TRAFFIC', 'TARGET', `${proxyHeader} AFTER SYNC`)
  const extra = (z: ZoneRow) => (wide ? [pct(z.trafficShare), num(z.target), proxyCell(z.kubeProxyPredicted, style, z.nodes.counted + z.nodes.ignored > 0)] : [])
  const row = (z: ZoneRow) => [
    z.name,
    String(z.nodes.counted),
    String(z.nodes.ignored),
    cpu(z.cpuMilli),
    pct(z.cpuRatio),
    String(z.readyEndpoints),
    num(z.desired),
    num(z.minimum),
    num(z.maximum),
    z.assigned === z.liveHints ? String(z.assigned) : style.changed(String(z.assigned)),
    z.expectedOverload !== null && z.expectedOverload > 0.2 ? style.warn(signedPct(z.expectedOverload)) : signedPct(z.expectedOverload),
    z.donatedIn || z.donatedOut ? `+${z.donatedIn}/-${z.donatedOut}` : '-',
    String(z.liveHints),
    proxyCell(z.kubeProxy, style, z.nodes.counted + z.nodes.ignored > 0),
    ...extra(z),
  ]
  const totals = svc.totals
  // A zone that only live hints name (no node, no endpoint, nothing predicted for it: a typo or a
  // removed zone) is not a row: its hints would make LIVE HINTS add up to more than READY. It
  // is named on a line below the table instead, and TOTAL adds the rows shown.
  const hintOnly = (z: ZoneRow) => z.nodes.counted + z.nodes.ignored === 0 && z.readyEndpoints === 0 && z.assigned === 0 && z.cpuMilli === 0
  const shown = svc.zones.filter((z) => !hintOnly(z))
  const elsewhere = svc.zones.filter((z) => hintOnly(z) && z.liveHints > 0)
  // Endpoints without a zone (their node has no zone label): a row of their own, so the rows add up to TOTAL.
  const nz = svc.withoutZone
  const blanks = wide ? ['', '', ''] : []
  const noZone = nz === null ? [] : [['<no zone>', '0', String(nz.nodes), '', '', String(nz.readyEndpoints), '', '', '', '0', '', '-', '0', '', ...blanks]]
  const sumRatio = svc.zones.some((z) => z.cpuRatio !== null) ? svc.zones.reduce((a, z) => a + (z.cpuRatio ?? 0), 0) : null
  const total = [
    'TOTAL',
    String(svc.zones.reduce((a, z) => a + z.nodes.counted, 0)),
    String(svc.zones.reduce((a, z) => a + z.nodes.ignored, 0) + (nz?.nodes ?? 0)),
    cpu(totals.cpuMilli),
    pct(sumRatio),
    String(totals.readyEndpoints),
    svc.zones.some((z) => z.desired !== null) ? num(svc.zones.reduce((a, z) => a + (z.desired ?? 0), 0)) : '-',
    svc.zones.some((z) => z.minimum !== null) ? String(svc.zones.reduce((a, z) => a + (z.minimum ?? 0), 0)) : '-',
    '',
    String(totals.assigned),
    '',
    totals.donated ? String(totals.donated) : '-',
    String(shown.reduce((a, z) => a + z.liveHints, 0)),
    '',
    ...blanks,
  ]
  const table = formatTable(opts.noHeaders ? null : header, [...shown.map(row), ...noZone, total])
  if (elsewhere.length === 0) return table
  const named = elsewhere.map((z) => `${z.name} (${z.liveHints} ready endpoint${z.liveHints === 1 ? '' : 's'})`).join(', ')
  return `${table}\nLive hints also name zones without nodes or endpoints, not counted above: ${named}; no node there routes by them.`
}

const hintCell = (h: HintNames | null) => {
  if (h === null || (h.forZones.length === 0 && h.forNodes.length === 0)) return '<none>'
  const z = h.forZones.length ? `zones=${h.forZones.join(',')}` : ''
  const n = h.forNodes.length ? `nodes=${h.forNodes.join(',')}` : ''
  return [z, n].filter(Boolean).join(' ')
}
const cond = (v: boolean | null) => (v === null ? '<unset>' : String(v))

/** -o wide's endpoint rows, sorted by zone, node, then address (no zone, no node last). */
function endpointTable(rows: readonly EndpointRow[], opts: RenderOptions, style: Style): string {
  // ALTERNATIVES: where upstream picks at random (Go's map order), every zone the predicted hint can name.
  const header = ['ADDRESS', 'NODE', 'ZONE', 'READY', 'SERVING', 'TERMINATING', 'SLICE', 'LIVE HINTS', 'PREDICTED HINTS', 'ALTERNATIVES', 'DONATED']
  const last = '\uffff'
  const key = (e: EndpointRow) => [e.zone ?? last, e.nodeName ?? last, e.addresses.join(','), e.slice]
  const cmp = (a: EndpointRow, b: EndpointRow) => {
    const ka = key(a)
    const kb = key(b)
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1
    return 0
  }
  const body = [...rows]
    .sort(cmp)
    .map((e) => [
      e.addresses.join(','),
      e.nodeName ?? '<none>',
      e.zone ?? '<none>',
      cond(e.conditions.ready),
      cond(e.conditions.serving),
      cond(e.conditions.terminating),
      e.slice,
      hintCell(e.liveHints),
      e.drift ? style.changed(hintCell(e.predictedHints)) : hintCell(e.predictedHints),
      e.alternatives === null ? '-' : style.warn(`any of ${e.alternatives.join(',')}`),
      e.donatedTo ? `-> ${e.donatedTo}` : '-',
    ])
  if (body.length === 0) return 'No endpoints.'
  return formatTable(opts.noHeaders ? null : header, body)
}

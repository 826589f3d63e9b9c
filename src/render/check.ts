// Printers for `check`: a kubectl-style table (one row per Service x policy), JSON (the
// CheckReport, schema/check.v1.json), YAML, and JUnit XML for CI systems (one testsuite per
// Service and address type, one testcase per policy). Formatting only.
import type {CheckReport, PolicyResult, ServiceCheck} from '../check/check.js'
import {escapeDeep} from './escape.js'
import {dataPlaneLine} from '../dataplane/describe.js'
import {PLAIN, type Style} from './style.js'
import {recommendationLine, worthSaying} from './advice.js'
import {formatTable} from './table.js'
import {jsonText, yamlText} from './encode.js'

export type CheckFormat = 'table' | 'json' | 'yaml' | 'junit'

export interface CheckRenderOptions {
  format: CheckFormat
  style?: Style
  noHeaders?: boolean
}

export function renderCheck(report: CheckReport, opts: CheckRenderOptions): string {
  switch (opts.format) {
    case 'json':
      return `${jsonText(report)}\n`
    case 'yaml':
      return yamlText(report, {aliasDuplicateObjects: false, lineWidth: 0})
    case 'junit':
      return renderJUnit(escapeDeep(report))
    default:
      return renderTable(escapeDeep(report), opts)
  }
}

/**
 * Whether a Service is checked more than once (a dual-stack Service: one check per address
 * type), so that its rows and suites name the address type. Counted once per report: asking the
 * whole list for each Service was 4 million comparisons for `check -A` on 2,000 Services.
 */
function dualOf(report: CheckReport): (s: ServiceCheck) => boolean {
  const count = new Map<string, Map<string, number>>()
  for (const x of report.services) {
    let names = count.get(x.namespace)
    if (names === undefined) count.set(x.namespace, (names = new Map()))
    names.set(x.name, (names.get(x.name) ?? 0) + 1)
  }
  return (s) => (count.get(s.namespace)?.get(s.name) ?? 0) > 1
}

const serviceName = (s: ServiceCheck, dual: boolean) => `${s.namespace}/${s.name}${dual ? ` (${s.addressType})` : ''}`

function statusCell(r: PolicyResult, style: Style): string {
  if (r.status === 'pass') return style.ok('PASS')
  if (r.status === 'fail') return style.bad('FAIL')
  return style.dim('SKIP')
}

function renderTable(report: CheckReport, opts: CheckRenderOptions): string {
  const style = opts.style ?? PLAIN
  const lines: string[] = []
  // report.warnings: the command prints them on stderr, in every format (as kubectl prints warnings).
  if (report.dataPlane) lines.push(dataPlaneLine(report.dataPlane))
  if (report.services.length === 0) return `${[...lines, 'No Services found.'].join('\n')}\n`
  const rows: string[][] = []
  const dual = dualOf(report)
  for (const s of report.services) {
    const name = serviceName(s, dual(s))
    for (const r of s.results) {
      rows.push([name, r.policy, statusCell(r, style), r.message])
      if (r.status === 'fail' || (r.policy === 'lint' && r.details.length > 0)) {
        for (const d of r.details) rows.push(['', '', '', style.dim(`  ${d}`)])
      }
    }
    // The advisor's recommendation (explain's "What to do"), when it says more than "keep it".
    if (s.recommendation !== null && worthSaying(s.recommendation)) rows.push([name, 'advice', '', recommendationLine(s.recommendation)])
  }
  lines.push(formatTable(opts.noHeaders ? null : ['SERVICE', 'POLICY', 'RESULT', 'MESSAGE'], rows))
  const sm = report.summary
  lines.push('')
  const verdict = report.passed ? style.ok('PASSED') : style.bad('FAILED')
  lines.push(
    `${verdict}: ${sm.services} Service(s) checked, ${sm.passed} passed, ${sm.failed} failed (${sm.failures} of ${sm.checks} checks failed${sm.skipped ? `, ${sm.skipped} skipped` : ''}).`,
  )
  return `${lines.join('\n')}\n`
}

/** Escapes text for XML attribute values and character data (XML 1.0; drops characters XML cannot carry). */
function xmlEscape(s: string): string {
  return s
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

function renderJUnit(report: CheckReport): string {
  const a = (k: string, v: string | number) => ` ${k}="${xmlEscape(String(v))}"`
  const sm = report.summary
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>']
  const dual = dualOf(report)
  out.push(`<testsuites${a('name', 'kubectl topology check')}${a('tests', sm.checks)}${a('failures', sm.failures)}${a('errors', 0)}${a('skipped', sm.skipped)}>`)
  for (const s of report.services) {
    const failures = s.results.filter((r) => r.status === 'fail').length
    const skipped = s.results.filter((r) => r.status === 'skip').length
    const suite = serviceName(s, dual(s))
    out.push(`  <testsuite${a('name', suite)}${a('tests', s.results.length)}${a('failures', failures)}${a('errors', 0)}${a('skipped', skipped)}>`)
    out.push('    <properties>')
    out.push(`      <property${a('name', 'namespace')}${a('value', s.namespace)}/>`)
    out.push(`      <property${a('name', 'service')}${a('value', s.name)}/>`)
    out.push(`      <property${a('name', 'addressType')}${a('value', s.addressType)}/>`)
    out.push(`      <property${a('name', 'path')}${a('value', s.path)}/>`)
    out.push(`      <property${a('name', 'kubernetesVersion')}${a('value', report.kubernetesVersion)}/>`)
    out.push('    </properties>')
    const classname = `${s.namespace}.${s.name}${dual(s) ? `.${s.addressType}` : ''}`
    for (const r of s.results) {
      const open = `    <testcase${a('name', r.policy)}${a('classname', classname)}`
      if (r.status === 'pass') {
        out.push(`${open}>`)
        out.push(`      <system-out>${xmlEscape([r.message, ...r.details].join('\n'))}</system-out>`)
        out.push('    </testcase>')
      } else if (r.status === 'skip') {
        out.push(`${open}>`)
        out.push(`      <skipped${a('message', r.message)}/>`)
        out.push('    </testcase>')
      } else {
        out.push(`${open}>`)
        out.push(`      <failure${a('message', r.message)}${a('type', r.policy)}>${xmlEscape([r.message, ...r.details].join('\n'))}</failure>`)
        out.push('    </testcase>')
      }
    }
    out.push('  </testsuite>')
  }
  out.push('</testsuites>')
  return `${out.join('\n')}\n`
}

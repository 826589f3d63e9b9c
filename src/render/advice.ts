// The advisor's recommendation (src/advise/types.ts) as text: one line (watch, check) or the
// block explain prints under "What to do" (each command alone on its own line, so that it can
// be copied whole; the plain-kubectl alternative on its own line after "or, with kubectl alone:").
import type {Recommendation} from '../advise/types.js'
import type {Style} from './style.js'
import {withinBound} from '../advise/format.js'

/** Whether the recommendation says more than "keep what is there, all is well". */
export function worthSaying(r: Recommendation): boolean {
  const above = !withinBound(r.predicted.worstOverload, r.bound)
  return r.steps.length > 0 || !r.meetsBound || above || (r.current !== 'none' && !r.predicted.hints)
}

/** One line: the verdict (the first reason) and, when there is one, the first command. */
export function recommendationLine(r: Recommendation): string {
  const first = r.reasons[0] ?? `keep ${r.current}`
  return r.steps.length > 0 ? `${first} -> ${r.steps.map((s) => s.command).join(' && ')}` : first
}

/** The block under "What to do": the verdict, each step's command and alternative, then the other reasons. */
export function recommendationBlock(r: Recommendation, style: Style): string[] {
  const lines: string[] = [`  - ${r.meetsBound ? r.reasons[0] : style.bad(r.reasons[0] ?? '')}`]
  for (const s of r.steps) {
    lines.push(`      ${s.command}`)
    if (s.alternative !== null) {
      lines.push('    or, with kubectl alone:')
      lines.push(`      ${s.alternative}`)
    }
  }
  for (const why of r.reasons.slice(1)) lines.push(style.dim(`    ${why}`))
  return lines
}

// What the tool printed for a user to run, taken from its table and JSON output, and what it
// promised each command does. Two shapes are read:
//   the advisor's: per Service `recommendation.steps[]` = {command, alternative, expect: {mode,
//     hints, inZone}} in explain's and plan's JSON; every command alone on a table line;
//   the older one: explain's `advice[].command` ("CMD   (or: ALT)") and plan's
//     `recommendation.commands`, with no promise: the test then takes plan's own figures for the
//     mode at the count the commands lead to (its mode table) as the promise ("fallback").

export type Mode = 'Auto' | 'PreferClose' | 'PreferSameZone' | 'PreferSameNode' | 'none'

export interface Expect {
  mode: Mode
  /** Whether the controller writes hints afterwards (null: nothing was promised). */
  hints: boolean | null
  /** explain's predicted in-zone share afterwards (null: nothing was promised). */
  inZone: number | null
}

export interface Step {
  command: string
  alternative: string | null
  expect: Expect | null
}

/** A sequence of printed commands run in one copy of the scenario, and the promise checked after it. */
export interface Run {
  source: 'explain' | 'plan'
  /** `command` or `alternative` of the steps. */
  variant: 'command' | 'alternative'
  commands: string[]
  /** null: neither the step nor the commands say what mode they lead to (a test failure). */
  expect: Expect | null
  promise: 'advice' | 'fallback'
}

interface JsonStep {
  command?: unknown
  alternative?: unknown
  expect?: {mode?: unknown; hints?: unknown; inZone?: unknown} | null
}

export interface ServiceJson {
  namespace: string
  name: string
  advice?: {code?: string; command?: string}[]
  /** The advisor's (explain and plan): today's steps. Before it, plan's {mode, commands}. */
  recommendation?: {mode?: string; commands?: string[]; steps?: JsonStep[]}
  /** plan's verdict over the range, rollouts and zone losses: {mode, commands} (no promises). */
  extended?: {mode?: string; commands?: string[]} | null
}

export interface PlanServiceJson extends ServiceJson {
  readyEndpoints: number
  currentMode: string
  workload: {kind: string; name: string; replicas: number; hpa: {name: string; minReplicas: number; maxReplicas: number} | null} | null
  range: {rows: {replicas: number; zones: Record<string, number>; modes: Record<string, {hints: boolean; inZone: number | null} | undefined>}[]}
}

/** "CMD   (or: ALT)" (the older explain line) -> [CMD, ALT]; a plain command -> [CMD]. */
function splitOr(text: string): string[] {
  const m = /^(.*?)\s{2,}\(or: (.*)\)$/.exec(text.trim())
  return m ? [m[1]!.trim(), m[2]!.trim()] : [text.trim()]
}

/** Every command a table section shows: the lines that start with `kubectl ` once indented (and "(or: ...)" alternatives). */
export function tableCommands(section: string): string[] {
  const out: string[] = []
  for (const line of section.split('\n')) {
    const t = line.trim()
    if (t.startsWith('kubectl ')) out.push(...splitOr(t))
    else if (/^\(or: kubectl .*\)$/.test(t)) out.push(t.slice(5, -1).trim())
  }
  return out
}

/** The table output split by its `Service NS/NAME` headers. */
export function tableSections(table: string): Map<string, string> {
  const out = new Map<string, string>()
  let key: string | null = null
  let lines: string[] = []
  const flush = () => {
    if (key) out.set(key, lines.join('\n'))
  }
  for (const line of table.split('\n')) {
    const m = /^Service (\S+?)\/(\S+)(?:\s|$)/.exec(line)
    if (m) {
      flush()
      key = `${m[1]}/${m[2]}`
      lines = []
    }
    if (key) lines.push(line)
  }
  flush()
  return out
}

const MODES: readonly string[] = ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'none']

function toExpect(e: JsonStep['expect']): Expect | null {
  if (!e || typeof e.mode !== 'string') return null
  if (!MODES.includes(e.mode)) throw new Error(`expect.mode ${JSON.stringify(e.mode)} is none of ${MODES.join(', ')}`)
  return {mode: e.mode as Mode, hints: typeof e.hints === 'boolean' ? e.hints : null, inZone: typeof e.inZone === 'number' ? e.inZone : null}
}

/** plan's range verdict: `extended` (with the advisor), `recommendation` before it. */
function extendedOf(s: ServiceJson): {mode?: string; commands?: string[]} | null {
  if (s.extended) return s.extended
  return Array.isArray(s.recommendation?.commands) ? s.recommendation : null
}

/** Today's steps: the advisor's when the JSON has them, else explain's older advice (no promises). */
function stepsOf(s: ServiceJson, source: 'explain' | 'plan'): Step[] {
  const steps = s.recommendation?.steps
  if (Array.isArray(steps)) {
    return steps.map((x) => ({
      command: String(x.command),
      alternative: typeof x.alternative === 'string' ? x.alternative : null,
      expect: toExpect(x.expect),
    }))
  }
  if (source === 'plan') return []
  return (s.advice ?? [])
    .filter((a) => typeof a.command === 'string')
    .map((a) => {
      const [command, alternative] = splitOr(a.command!)
      return {command: command!, alternative: alternative ?? null, expect: null}
    })
}

/** Every command string the JSON carries for the Service (steps, and any other advice command). */
export function jsonCommands(s: ServiceJson, source: 'explain' | 'plan'): string[] {
  const out = stepsOf(s, source).flatMap((x) => (x.alternative ? [x.command, x.alternative] : [x.command]))
  if (source === 'explain') for (const a of s.advice ?? []) if (typeof a.command === 'string') out.push(...splitOr(a.command))
  if (source === 'plan') out.push(...(extendedOf(s)?.commands ?? []))
  return [...new Set(out)]
}

/** The mode a command sets, read from the command itself (for the older shape's promise). */
function modeOfCommand(cmd: string): Mode | null {
  const m = /--mode[ =](\S+)/.exec(cmd) ?? /"trafficDistribution":\s*"(\w+)"/.exec(cmd)
  if (m) return m[1] === 'off' ? 'none' : MODES.includes(m[1]!) ? (m[1] as Mode) : null
  if (/\btopology-mode=Auto\b/.test(cmd)) return 'Auto'
  return null
}

/** The replica count a command leads to (kubectl scale --replicas=N; an HPA's minReplicas N above today's). */
export function countOfCommand(cmd: string, now: number): number | null {
  const scale = /--replicas[ =](\d+)/.exec(cmd)
  if (scale) return Number(scale[1])
  const min = /"minReplicas":\s*(\d+)/.exec(cmd)
  if (min) return Math.max(now, Number(min[1]))
  return null
}

/** The promise of the older shape: plan's own figures for `mode` at `count`. */
function fallbackExpect(p: PlanServiceJson, mode: Mode, count: number): Expect {
  const row = p.range.rows.find((r) => r.replicas === count)
  const f = row?.modes[mode]
  return {mode, hints: f ? f.hints : null, inZone: f && typeof f.inZone === 'number' ? f.inZone : null}
}

/**
 * The runs for one Service: each explain step's command, and its alternative, on its own; plan's
 * steps in order as one sequence (and the sequence of their alternatives, when any differs).
 * Sequences that are the same strings are run once.
 */
export function runsOf(explain: ServiceJson, plan: PlanServiceJson): Run[] {
  const runs: Run[] = []
  const now = plan.readyEndpoints
  const promise = (steps: Step[], commands: string[], planMode: string | null = null): {expect: Expect; promise: Run['promise']} | null => {
    const last = steps[steps.length - 1]
    if (last?.expect) return {expect: last.expect, promise: 'advice'}
    let mode: Mode | null = planMode && MODES.includes(planMode) ? (planMode as Mode) : null
    for (const c of commands) mode = modeOfCommand(c) ?? mode
    if (!mode) return null
    let count = now
    for (const c of commands) count = countOfCommand(c, count) ?? count
    return {expect: fallbackExpect(plan, mode, count), promise: 'fallback'}
  }
  for (const step of stepsOf(explain, 'explain')) {
    for (const [variant, cmd] of [
      ['command', step.command],
      ['alternative', step.alternative],
    ] as const) {
      if (!cmd) continue
      const p = promise([step], [cmd])
      runs.push({source: 'explain', variant, commands: [cmd], expect: p?.expect ?? null, promise: p?.promise ?? 'fallback'})
    }
  }
  // plan's today steps (the advisor's: explain's, so usually deduplicated below), in order.
  const planSteps = stepsOf(plan, 'plan')
  if (planSteps.length > 0) {
    const commands = planSteps.map((s) => s.command)
    const p = promise(planSteps, commands)
    runs.push({source: 'plan', variant: 'command', commands, expect: p?.expect ?? null, promise: p?.promise ?? 'fallback'})
    if (planSteps.some((s) => s.alternative)) {
      const alts = planSteps.map((s) => s.alternative ?? s.command)
      const q = promise(planSteps, alts)
      runs.push({source: 'plan', variant: 'alternative', commands: alts, expect: q?.expect ?? null, promise: q?.promise ?? 'fallback'})
    }
  }
  // plan's verdict over the range (HPA, scale, zone spread; no promise printed: plan's figures).
  const ext = extendedOf(plan)
  if (ext?.commands && ext.commands.length > 0) {
    const p = promise([], ext.commands, ext.mode ?? null)
    runs.push({source: 'plan', variant: 'command', commands: ext.commands, expect: p?.expect ?? null, promise: p?.promise ?? 'fallback'})
  }
  const seen = new Set<string>()
  return runs.filter((r) => {
    const k = r.commands.join('\n')
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

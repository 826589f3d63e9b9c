// Decides the colour level like kubectl-family tools do (docs/design.md "Colour"):
// --color always|never wins; then NO_COLOR (non-empty) turns colour off; FORCE_COLOR=0 off,
// FORCE_COLOR=1..3 on; TERM=dumb off; otherwise colour only when the stream is a TTY.
// chalk 6 ignores NO_COLOR, so the level is decided here and passed to new Chalk({level}).
import type {ColorLevel} from './style.js'

export type ColorMode = 'auto' | 'always' | 'never'

export function decideColorLevel(mode: ColorMode, env: Record<string, string | undefined>, isTTY: boolean): ColorLevel {
  if (mode === 'never') return 0
  const force = env.FORCE_COLOR
  const forcedLevel = (): ColorLevel | undefined => {
    if (force === undefined) return undefined
    if (force === '' || force === 'true') return 1
    if (force === 'false') return 0
    const n = Number.parseInt(force, 10)
    if (Number.isNaN(n)) return undefined
    return Math.max(0, Math.min(3, n)) as ColorLevel
  }
  if (mode === 'always') return forcedLevel() || 2
  if (env.NO_COLOR) return 0
  const forced = forcedLevel()
  if (forced !== undefined) return forced
  if (!isTTY || env.TERM === 'dumb') return 0
  const term = env.COLORTERM ?? ''
  if (term === 'truecolor' || term === '24bit') return 3
  return (env.TERM ?? '').includes('256') ? 2 : 1
}

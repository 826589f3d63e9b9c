// Colours for terminal output. Colour only marks status; every line reads the same without it.
import {Chalk, type ChalkInstance} from 'chalk'

export type ColorLevel = 0 | 1 | 2 | 3

export interface Style {
  level: ColorLevel
  ok: (s: string) => string
  bad: (s: string) => string
  warn: (s: string) => string
  dim: (s: string) => string
  bold: (s: string) => string
  changed: (s: string) => string
}

export function makeStyle(level: ColorLevel): Style {
  const c: ChalkInstance = new Chalk({level})
  return {
    level,
    ok: (s) => c.green(s),
    bad: (s) => c.red(s),
    warn: (s) => c.yellow(s),
    dim: (s) => c.gray(s),
    bold: (s) => c.bold(s),
    changed: (s) => c.cyan(s),
  }
}

export const PLAIN: Style = makeStyle(0)

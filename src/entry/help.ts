// The one help renderer: every `--help`, `-h`, `help [COMMAND]` and the bare `kubectl topology`
// print what this module makes from the oclif manifest (oclif.manifest.json: the commands'
// summaries, descriptions, usage, examples and flags, written by scripts/build.mjs from the
// command classes). src/entry/dispatch.ts calls it before oclif is loaded, and oclif's own help
// never runs (dispatch.ts handles help, version and unknown commands itself and gives oclif
// only the command to run), so help costs about one `node` start (docs/design.md "Startup").
//
// The layout is cobra's, which kubectl and most kubectl plugins print: a description, then
// Usage:, Examples: (kubectl's "# comment" above each command line), Flags: with pflag's
// `-n, --namespace string   text (default "x")` columns. Text is wrapped at 80 columns
// whatever the terminal, and there is no colour: the output is the same on a terminal, in a
// pipe and in the docs. Pure: no I/O.

export interface HelpFlag {
  name: string
  type: 'boolean' | 'option'
  char?: string
  description?: string
  summary?: string
  options?: readonly string[]
  default?: unknown
  helpGroup?: string
  hidden?: boolean
  multiple?: boolean
  allowNo?: boolean
}

export type HelpExample = string | {description: string; command: string}

export interface HelpCommand {
  id: string
  summary?: string
  description?: string
  usage?: string | string[]
  examples?: HelpExample[]
  flags: Record<string, HelpFlag>
  hidden?: boolean
  aliases?: string[]
}

export interface HelpManifest {
  version: string
  commands: Record<string, HelpCommand>
}

/** What the root help says about the program (package.json fields). */
export interface HelpProgram {
  /** How users call it: "kubectl topology" (package.json oclif.bin). */
  bin: string
  description: string
}

export const WIDTH = 80
const INDENT = '  '
/** The first column of a two-column list (commands, flags) is padded to this gap. */
const GAP = 3

/** The -h/--help flag every command has (shown in Flags:, offered by completion). */
const HELP_FLAG: HelpFlag = {name: 'help', type: 'boolean', char: 'h', description: 'Show help.'}
const VERSION_FLAG: HelpFlag = {name: 'version', type: 'boolean', description: 'Show the version.'}

/**
 * Words of `text` in lines of at most `width` characters. A word longer than a line is cut
 * after a "," or "|" where it can be (a list of values), else gets a line of its own.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  const words = text.split(/\s+/).filter((w) => w !== '')
  for (const word of words.flatMap((w) => (w.length > width ? splitList(w, width) : [w]))) {
    if (line === '') line = word
    else if (line.length + 1 + word.length <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = word
    }
  }
  if (line !== '') lines.push(line)
  return lines
}

/** "a,b,c" cut after separators into pieces of at most `width` (the last may be longer). */
function splitList(word: string, width: number): string[] {
  const pieces: string[] = []
  let rest = word
  while (rest.length > width) {
    const cut = Math.max(rest.lastIndexOf(',', width - 1), rest.lastIndexOf('|', width - 1))
    if (cut <= 0) break
    pieces.push(rest.slice(0, cut + 1))
    rest = rest.slice(cut + 1)
  }
  return [...pieces, rest]
}

/**
 * A description as lines of at most WIDTH columns: paragraphs (blank-line separated) are
 * re-wrapped; a paragraph with an indented line is pre-formatted (a table of flags in a
 * description): its lines keep their layout, and a line too long continues under its last
 * column (the text after the last run of two or more spaces).
 */
export function wrapText(text: string): string[] {
  const out: string[] = []
  for (const para of text.replace(/^(\s*\n)+|\s+$/g, '').split(/\n[ \t]*\n/)) {
    if (out.length > 0) out.push('')
    const lines = para.split('\n')
    if (!lines.some((l) => /^\s/.test(l))) {
      out.push(...wrapWords(para, WIDTH))
      continue
    }
    // The table's text column: where most lines' text starts after a gap of 2+ spaces.
    const counts = new Map<number, number>()
    for (const l of lines) {
      const c = /^(.*\S {2,})(?=\S)/.exec(l)?.[0].length
      if (c !== undefined) counts.set(c, (counts.get(c) ?? 0) + 1)
    }
    const common = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0]
    for (const line of lines.map((l) => l.trimEnd())) {
      const own = /^(.*\S {2,}|\s+)(?=\S)/.exec(line)?.[0].length ?? 0
      const column = common !== undefined && line[common - 1] === ' ' && line[common] !== ' ' ? common : own
      if (line.length <= WIDTH || WIDTH - column < 24) out.push(line)
      else out.push(...twoColumns([[line.slice(0, column), line.slice(column)]], column))
    }
  }
  return out
}

/**
 * Two columns: `first` padded to `col` (by default the longest plus GAP spaces), then `text`
 * wrapped to WIDTH with continuation lines aligned under it.
 */
function twoColumns(rows: [string, string][], col = Math.max(...rows.map(([first]) => first.length)) + GAP): string[] {
  const out: string[] = []
  for (const [first, text] of rows) {
    const wrapped = wrapWords(text, Math.max(WIDTH - col, 24))
    if (wrapped.length === 0) out.push(first)
    else {
      out.push(`${first.padEnd(col)}${wrapped[0]}`)
      for (const l of wrapped.slice(1)) out.push(`${' '.repeat(col)}${l}`)
    }
  }
  return out
}

function flagText(f: HelpFlag): string {
  let text = (f.description ?? f.summary ?? '').trim()
  if (f.options?.length) text += `${text === '' || /[.:]$/.test(text) ? '' : '.'} One of: ${f.options.join('|')}.`
  const dflt = f.default
  if (f.type === 'option' && dflt !== undefined && dflt !== '' && typeof dflt !== 'function') text += ` (default ${JSON.stringify(String(dflt))})`
  if (f.type === 'boolean' && dflt === true) text += ' (default true)'
  return text
}

function flagRows(flags: HelpFlag[]): [string, string][] {
  return flags.map((f) => {
    const names = f.char ? `${INDENT}-${f.char}, --` : `${INDENT}    --`
    const name = f.type === 'boolean' && f.allowNo ? `[no-]${f.name}` : f.name
    return [`${names}${name}${f.type === 'option' ? ' string' : ''}`, flagText(f)]
  })
}

const byName = (a: HelpFlag, b: HelpFlag) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
const titleCase = (group: string) => group.charAt(0).toUpperCase() + group.slice(1).toLowerCase()

/** The Flags: sections: ungrouped flags and -h/--help first, then each helpGroup. */
function flagSections(flags: Record<string, HelpFlag>): string[] {
  const visible = Object.values(flags).filter((f) => !f.hidden)
  const groups = new Map<string, HelpFlag[]>([['', [HELP_FLAG]]])
  for (const f of visible) {
    const g = f.helpGroup ?? ''
    groups.set(g, [...(groups.get(g) ?? []), f])
  }
  // One column for every section, so the descriptions line up down the whole page.
  const all = flagRows([...groups.values()].flat())
  const col = Math.max(...all.map(([first]) => first.length))
  const out: string[] = []
  for (const [group, list] of groups) {
    out.push('', group === '' ? 'Flags:' : `${titleCase(group)} Flags:`)
    out.push(...twoColumns(flagRows([...list].sort(byName)).map(([first, text]) => [first.padEnd(col), text])))
  }
  return out
}

function expand(text: string, program: HelpProgram): string {
  return text.replaceAll('<%= config.bin %>', program.bin)
}

function usageLines(cmd: HelpCommand, program: HelpProgram): string[] {
  const usage = cmd.usage === undefined ? [`${cmd.id} [flags]`] : Array.isArray(cmd.usage) ? cmd.usage : [cmd.usage]
  return usage.map((u) => `${INDENT}${program.bin} ${expand(u, program)}`)
}

function exampleLines(examples: HelpExample[], program: HelpProgram): string[] {
  const out: string[] = []
  for (const e of examples) {
    if (out.length > 0) out.push('')
    if (typeof e === 'string') out.push(`${INDENT}${expand(e, program)}`)
    else {
      for (const l of wrapWords(e.description, WIDTH - 4)) out.push(`${INDENT}# ${l}`)
      out.push(`${INDENT}${expand(e.command, program)}`)
    }
  }
  return out
}

/** `kubectl topology --help`: what the plugin is, and its commands. */
export function rootHelp(manifest: HelpManifest, program: HelpProgram): string {
  const commands = Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const lines = [
    ...wrapText(program.description),
    '',
    'Usage:',
    `${INDENT}${program.bin} [command]`,
    '',
    'Available Commands:',
    ...twoColumns(commands.map((c) => [`${INDENT}${c.id}`, c.summary ?? firstLine(c.description)])),
    '',
    'Flags:',
    ...twoColumns(flagRows([HELP_FLAG, VERSION_FLAG])),
    '',
    `Use "${program.bin} [command] --help" for more information about a command.`,
  ]
  return `${lines.join('\n')}\n`
}

const firstLine = (s: string | undefined) => (s ?? '').trim().split('\n')[0] ?? ''

/** `kubectl topology COMMAND --help`. */
export function commandHelp(cmd: HelpCommand, program: HelpProgram): string {
  const description = [cmd.summary, cmd.description].filter((s): s is string => Boolean(s?.trim()))
  // oclif's convention: the summary is the first sentence; a description that already
  // starts with it is not printed twice.
  const text = description.length === 2 && description[1]!.trim().startsWith(description[0]!.trim()) ? [description[1]!] : description
  const lines = [...wrapText(expand(text.join('\n\n'), program)), '', 'Usage:', ...usageLines(cmd, program)]
  if (cmd.aliases?.length) lines.push('', 'Aliases:', `${INDENT}${[cmd.id, ...cmd.aliases].join(', ')}`)
  if (cmd.examples?.length) lines.push('', 'Examples:', ...exampleLines(cmd.examples, program))
  lines.push(...flagSections(cmd.flags))
  return `${lines.join('\n')}\n`
}

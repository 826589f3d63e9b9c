// simulate on a real terminal (a pseudo-terminal made by util-linux `script`): the ink view,
// drawn once; piped, the plain text, and ink is never loaded (the modules the CLI loads are
// recorded by a module hook and looked up in the bundle's source maps).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {BIN, EXAMPLE, ROOT, runCli} from './run-cli.js'

const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const dir = mkdtempSync(path.join(os.tmpdir(), 'simview-'))
const HOOK = path.join(dir, 'record.mjs')
writeFileSync(
  HOOK,
  `import {registerHooks} from 'node:module'
import {appendFileSync} from 'node:fs'
registerHooks({load(url, context, next) { if (url.startsWith('file:')) appendFileSync(process.env.RECORD_IMPORTS, url + '\\n'); return next(url, context) }})
`,
)

/** Runs the CLI with stdout on a pseudo-terminal of `cols` columns; returns what it wrote (LF line ends). */
function inTerminal(args: string[], opts: {env?: Record<string, string | undefined>; cols?: number} = {}) {
  const env: Record<string, string | undefined> = {...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined, TERM: 'xterm', ...opts.env}
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
  const cmd = `stty cols ${opts.cols ?? 80} rows 200; exec ${sh(process.execPath)} ${sh(BIN)} ${args.map(sh).join(' ')}`
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {cwd: ROOT, env: env as NodeJS.ProcessEnv, encoding: 'utf8', input: '', timeout: 60_000})
  return {stdout: r.stdout.replace(/\r\n/g, '\n'), code: r.status}
}

/** The bundle files a run loaded whose source maps include ink. */
function inkFilesLoaded(record: string): string[] {
  const urls = readFileSync(record, 'utf8')
    .split('\n')
    .filter((u) => u.includes('/dist/'))
  return urls.filter((u) => {
    const file = fileURLToPath(u)
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as {sources: string[]}
    return map.sources.some((s) => s.includes('node_modules/ink/'))
  })
}

const ARGS = ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE]

describe.skipIf(!hasScript)('simulate on a terminal: the ink view', () => {
  it('ranked table and per-zone bars, within 80 columns; NO_COLOR: no escape codes', () => {
    const r = inTerminal(ARGS, {env: {NO_COLOR: '1'}})
    expect(r.code).toBe(0)
    const out = r.stdout
    expect(out).toContain('Service shop/checkout · 9 ready endpoints · traffic model cpu')
    expect(out).toContain('#  STRATEGY        SCORE  IN-ZONE  OVERLOAD MAX / MEAN  SLICES  FALLBACK-ZONES\n1  Auto            95.00    88.9%          0.0% / 0.0%       1  -\n')
    expect(out).toContain('PreferSameZone  rank 3, score 85.56')
    expect(out).toMatch(/^ {2}eu-west-1c {6}33% {2}2 local {4}█{14} 100% {2}█{7}▓{4}·{3} {2}\+50%$/m)
    expect(out).toContain('1 more strategy: choose them with --strategies to see their zones.')
    expect(out).not.toContain('RANK   STRATEGY')
    expect(out).not.toMatch(/\x1b/)
    for (const l of out.trimEnd().split('\n')) expect([...l].length, l).toBeLessThanOrEqual(80)
  })
  it("DEV=true changes nothing: ink's DEV-only blocks are cut from the bundle (scripts/esbuild-views.mjs inkWithoutDev)", () => {
    // (ink read a package.json the bundle does not have and printed a warning with a stack trace above the view.)
    const dev = inTerminal(ARGS, {env: {NO_COLOR: '1', DEV: 'true'}})
    expect(dev.code).toBe(0)
    expect(dev.stdout).not.toContain('package.json')
    expect(dev.stdout).toBe(inTerminal(ARGS, {env: {NO_COLOR: '1'}}).stdout)
  })
  it('colours on a colour terminal; --color never takes them away', () => {
    expect(inTerminal(ARGS).stdout).toMatch(/\x1b\[32m█+/)
    expect(inTerminal([...ARGS, '--color', 'never']).stdout).not.toMatch(/\x1b/)
  })
  it('-o wide, --no-headers and --plain keep the plain text on a terminal', () => {
    expect(inTerminal([...ARGS, '-o', 'wide', '--color', 'never']).stdout).toMatch(/^RANK\s+STRATEGY\s+SCORE/m)
    expect(inTerminal([...ARGS, '--plain', '--color', 'never']).stdout).toMatch(/^RANK\s+STRATEGY\s+SCORE/m)
    expect(inTerminal([...ARGS, '--no-headers', '--color', 'never']).stdout).toMatch(/^1\s+Auto\s+95\.00/m)
  })
  it('ink is loaded on the terminal, and only there: piped, no module of ink is', () => {
    const onTerminal = path.join(dir, 'terminal.txt')
    writeFileSync(onTerminal, '')
    expect(inTerminal(ARGS, {env: {NODE_OPTIONS: `--import=${HOOK}`, RECORD_IMPORTS: onTerminal}}).code).toBe(0)
    expect(inkFilesLoaded(onTerminal).length).toBeGreaterThan(0)
    const piped = path.join(dir, 'piped.txt')
    writeFileSync(piped, '')
    const r = runCli(ARGS, {env: {NODE_OPTIONS: `--import=${HOOK}`, RECORD_IMPORTS: piped}})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^RANK\s+STRATEGY/m)
    // the hook saw the bundle (not vacuous), and none of it was ink
    expect(readFileSync(piped, 'utf8')).toContain('/dist/')
    expect(inkFilesLoaded(piped)).toEqual([])
  })
})

// Help, --version and the errors before a command runs, on the built CLI (`npm run build`
// first): every form of asking for help prints src/entry/help.ts's rendering of the manifest,
// complete (every flag, every example), the same on a terminal or not; errors are one line.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/entry/commands.js'
import type {Manifest} from '../../src/entry/dispatch.js'
import {commandHelp, rootHelp, WIDTH} from '../../src/entry/help.js'
import pkg from '../../package.json' with {type: 'json'}
import {ROOT, runCli} from './run-cli.js'

const manifest = JSON.parse(readFileSync(`${ROOT}/oclif.manifest.json`, 'utf8')) as Manifest
const program = {bin: 'kubectl topology', description: pkg.description}
const ids = Object.keys(COMMANDS)

type FlagDef = {char?: string; hidden?: boolean; type: string}
type CommandClass = {flags?: Record<string, FlagDef>; examples?: ({description: string; command: string} | string)[]; summary?: string}

describe('help', () => {
  it('the manifest is the command classes (the build wrote it from COMMANDS)', () => {
    expect(Object.keys(manifest.commands).sort()).toEqual([...ids].sort())
    expect(manifest.version).toBe(pkg.version)
  })

  it('root help: bare, --help, -h and `help` all print it, listing every command', () => {
    const expected = rootHelp(manifest, program)
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const r = runCli(argv)
      expect(r, argv.join(' ')).toMatchObject({code: 0, stdout: expected, stderr: ''})
    }
    expect(expected).toMatch(/^Usage:\n {2}kubectl topology \[command\]$/m)
    for (const id of ids) {
      const summary = (COMMANDS[id as keyof typeof COMMANDS] as CommandClass).summary!
      expect(expected).toMatch(new RegExp(`^ {2}${id} +${summary.split(' ').slice(0, 3).join(' ')}`, 'm'))
    }
    expect(expected.trimEnd().split('\n').at(-1)).toBe('Use "kubectl topology [command] --help" for more information about a command.')
  })

  it.each(ids)('%s: --help, -h, `help COMMAND` and --help after other arguments print the same page', (id) => {
    const expected = commandHelp(manifest.commands[id]!, program)
    for (const argv of [
      [id, '--help'],
      [id, '-h'],
      ['help', id],
      [id, 'svc/web', '-n', 'shop', '--help'],
    ]) {
      const r = runCli(argv)
      expect(r, argv.join(' ')).toMatchObject({code: 0, stdout: expected, stderr: ''})
    }
  })

  it.each(ids)('%s: the page has the usage, every flag of the command and every example', (id) => {
    const page = commandHelp(manifest.commands[id]!, program)
    const cls = COMMANDS[id as keyof typeof COMMANDS] as CommandClass
    expect(page).toMatch(new RegExp(`^Usage:\\n {2}kubectl topology ${id}( .*)?$`, 'm'))
    expect(page).toMatch(/^ {2}-h, --help +Show help\.$/m)
    const flags = Object.entries(cls.flags ?? {}).filter(([, f]) => !f.hidden)
    expect(flags.length).toBeGreaterThan(0)
    for (const [name, f] of flags) {
      const names = f.char ? `-${f.char}, --${name}` : `    --${name}`
      expect(page, `--${name}`).toMatch(new RegExp(`^ {2}${names}${f.type === 'option' ? ' string' : ''} +\\S`, 'm'))
    }
    expect(cls.examples?.length).toBeGreaterThan(0)
    for (const e of cls.examples ?? []) {
      const command = (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', 'kubectl topology')
      expect(command).toMatch(new RegExp(`^kubectl topology ${id}|^kubectl topology \\w`))
      expect(page).toContain(`\n  ${command}\n`)
      if (typeof e !== 'string') expect(page).toContain(`  # ${e.description.split(' ').slice(0, 4).join(' ')}`)
    }
    expect(page).not.toContain('<%')
    // 80 columns, but for example command lines (kept whole for copy and paste).
    const long = page.split('\n').filter((l) => l.length > WIDTH && !l.startsWith('  kubectl topology '))
    expect(long).toEqual([])
  })

  it('does not depend on the terminal: no colour, no width from the environment', () => {
    const plain = runCli(['explain', '--help'])
    for (const env of [{FORCE_COLOR: '3'}, {COLUMNS: '40'}, {OCLIF_COLUMNS: '200'}, {NO_COLOR: '1'}]) {
      expect(runCli(['explain', '--help'], {env}).stdout).toBe(plain.stdout)
    }
    expect(plain.stdout).not.toMatch(/\x1b\[/)
  })

  it('a --help after -- is an argument of the command, not a request for help', () => {
    const r = runCli(['explain', '--', '--help'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
  })
})

describe('--version', () => {
  it('prints the name, version, platform and Node version', () => {
    const r = runCli(['--version'])
    expect(r).toMatchObject({code: 0, stderr: ''})
    expect(r.stdout).toBe(`kubectl-topology/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`)
  })
})

describe('errors before a command runs: one line on stderr, exit 2, never the usage', () => {
  it.each([
    [['expain'], /^error: unknown command "expain" for "kubectl topology" \(did you mean "explain"\?\): see kubectl topology --help$/],
    [['frob', '--help'], /^error: unknown command "frob" for "kubectl topology": see kubectl topology --help$/],
    [['help', 'frob'], /^error: unknown command "frob"/],
    [['-n', 'shop', 'explain'], /^error: flags go after the command \(kubectl topology COMMAND \[flags\]\), found "-n" first/],
    [['explain', '--no-such-flag'], /^error: Nonexistent flag: --no-such-flag \(see --help\)$/],
    [['explain', '-o', 'xml'], /^error: Expected --output=xml to be one of: table, wide, json, yaml \(see --help\)$/],
  ])('%j', (argv, message) => {
    const r = runCli(argv)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1)
    expect(r.stderr.trimEnd()).toMatch(message)
  })
})

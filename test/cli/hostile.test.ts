// Issue 14, run as a user runs it (the built CLI): a snapshot holding terminal control
// sequences (test/cli/data/hostile.yaml) prints them escaped in every text output and on
// stderr, and exactly in -o json; snapshots with values no API server returns are refused with
// exit 3 and one line naming the file, the object and the field, never exit 70.
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {ROOT, runCli} from './run-cli.js'

const DATA = path.join(ROOT, 'test/cli/data')
const HOSTILE = path.join(DATA, 'hostile.yaml')

/** What must never reach the terminal raw: C0 (but LF), DEL, C1, bidi and other format characters, separators. */
const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f\ufeff]/u
/** Colour codes the printers add (--color always) are not the input's: drop them first. */
const unsafe = (text: string) => RAW_UNSAFE.exec(text.replace(/\x1b\[[0-9;]*m/g, ''))

const ZONE_A = 'zone-\x1b[2J\x1b[Hred'
const ZONE_B = 'zone-\u202eb\u202c'

describe('hostile snapshot: text outputs escape what the snapshot holds', () => {
  const runs: [string, string[]][] = [
    ['explain table', ['explain', '-A']],
    ['explain wide', ['explain', '-A', '-o', 'wide']],
    ['explain per-node', ['explain', '-A', '--per-node']],
    ['explain per-node in colour', ['explain', '-A', '--per-node', '--color', 'always']],
    ['nodes', ['nodes']],
    ['nodes wide in colour', ['nodes', '-o', 'wide', '--color', 'always']],
    ['check', ['check', '-A', '--lint', '--no-drift', '--min-endpoints-per-zone', '2']],
    ['check junit', ['check', '-A', '-o', 'junit']],
    ['simulate', ['simulate', '-A']],
    ['simulate wide', ['simulate', '-A', '-o', 'wide', '--color', 'always']],
    ['simulate csv', ['simulate', '-A', '-o', 'csv']],
    ['apply preview', ['apply', 'svc/web', '-n', 'shop', '--mode', 'PreferSameZone']],
  ]
  for (const [name, args] of runs) {
    it(name, () => {
      const r = runCli([...args, '--from-file', HOSTILE])
      expect(r.code === 0 || r.code === 1, `${r.code}: ${r.stderr}`).toBe(true)
      expect(r.stdout.length).toBeGreaterThan(0)
      expect(unsafe(r.stdout), r.stdout).toBeNull()
      expect(unsafe(r.stderr), r.stderr).toBeNull()
    })
  }

  it('shows the escapes: ^[ for ESC (as kubectl), \\xHH and \\uHHHH for the rest', () => {
    const r = runCli(['explain', '-A', '--per-node', '--from-file', HOSTILE])
    expect(r.stdout).toContain('zone-^[[2J^[[Hred')
    expect(r.stdout).toContain('zone-\\u202eb\\u202c')
    expect(r.stdout).toContain('node-a\\x00^[[2J')
    expect(r.stdout).toContain('node-b\\r\\u200b')
  })

  it('-o json and -o yaml keep the strings exactly', () => {
    const j = runCli(['explain', '-A', '-o', 'json', '--from-file', HOSTILE])
    expect(j.code).toBe(0)
    const report = JSON.parse(j.stdout) as {services: {zones: {name: string}[]; nodes?: {name: string}[]}[]}
    expect(report.services[0]!.zones.map((z) => z.name)).toEqual([ZONE_A, ZONE_B])
    const y = runCli(['explain', '-A', '-o', 'yaml', '--per-node', '--from-file', HOSTILE])
    expect(y.code).toBe(0)
    const doc = parseYaml(y.stdout) as typeof report
    expect(doc.services[0]!.zones.map((z) => z.name)).toEqual([ZONE_A, ZONE_B])
    expect(doc.services[0]!.nodes!.map((n) => n.name)).toContain('node-a\x00\x1b[2J')
    const n = runCli(['nodes', '-o', 'json', '--from-file', HOSTILE])
    expect((JSON.parse(n.stdout) as {nodes: {name: string}[]}).nodes.map((x) => x.name).sort()).toEqual(['node-a\x00\x1b[2J', 'node-b\r\u200b', 'node-c\x1b]0;pwned\x07'])
  })

  it('an error naming a hostile object is escaped on stderr', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata: {name: "evil\\e[2J\\e[H", namespace: shop}\nspec: {trafficDistribution: 42}\n'
    const r = runCli(['explain', '-A', '--from-file', '-'], {input: text})
    expect(r.code).toBe(3)
    expect(unsafe(r.stderr), r.stderr).toBeNull()
    expect(r.stderr).toBe('error: <stdin>:4:29: Service "shop/evil^[[2J^[[H": spec.trafficDistribution must be a string, found a number (42)\n')
  })
})

describe('snapshots no API server returns: exit 3 naming the field, never exit 70', () => {
  it('spec.trafficDistribution: 42 (crashed explain, check and apply for every Service)', () => {
    const file = path.join(DATA, 'bad-traffic-distribution.yaml')
    const expected = `error: ${path.relative(ROOT, file)}:22:28: Service "shop/api": spec.trafficDistribution must be a string, found a number (42)\n`
    for (const args of [
      ['explain', '-n', 'shop'],
      ['explain', '-A', '-o', 'json'],
      ['check', '-A'],
      ['simulate', '-A'],
      ['apply', 'svc/web', '-n', 'shop', '--mode', 'Auto'],
      ['nodes'],
    ]) {
      const r = runCli([...args, '--from-file', path.relative(ROOT, file)])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3)
      expect(r.stderr).toBe(expected)
      expect(r.stdout).toBe('')
    }
  })
  it('serverVersion: banana', () => {
    const file = path.relative(ROOT, path.join(DATA, 'bad-server-version.yaml'))
    for (const args of [['explain', '-A'], ['check', '-A'], ['simulate', '-A'], ['nodes']]) {
      const r = runCli([...args, '--from-file', file])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3)
      expect(r.stderr).toBe(`error: ${file}:6:16: serverVersion: invalid Kubernetes version "banana": expected MAJOR.MINOR[.PATCH], e.g. "1.36.3", "v1.31.0-eks-abc" or "1.30+"\n`)
    }
  })
})

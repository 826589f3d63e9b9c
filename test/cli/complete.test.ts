// `kubectl-topology __complete ARGS... WORD` (what kubectl_complete-topology runs): cobra's
// protocol, candidates from the commands' own flags and from a snapshot file. No cluster.
import {describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/entry/commands.js'
import {EXAMPLE, runCli} from './run-cli.js'

function complete(...args: string[]) {
  const r = runCli(['__complete', ...args], {env: {KUBECONFIG: '/nonexistent/kubeconfig'}})
  const lines = r.stdout.split('\n').filter((l) => l !== '')
  return {...r, values: lines.filter((l) => !l.startsWith(':')).map((l) => l.split('\t')[0] ?? ''), directive: lines.at(-1)}
}

describe('__complete', () => {
  it('lists every visible command with its summary, and no file completion', () => {
    const r = complete('')
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const visible = Object.entries(COMMANDS)
      .filter(([, c]) => !(c as {hidden?: boolean}).hidden)
      .map(([id]) => id)
      .sort()
    expect(r.values).toEqual(visible)
    expect(r.stdout).toMatch(/^explain\tExplain why a Service/m)
    expect(r.directive).toBe(':4')
    expect(complete('sn').values).toEqual(['snapshot'])
  })

  it('completes the flags of the command, long names, shorthands after a lone dash', () => {
    const long = complete('explain', '--')
    expect(long.values).toContain('--output')
    expect(long.values).toContain('--namespace')
    expect(long.values).toContain('--from-file')
    expect(long.values).toContain('--help')
    expect(long.values.every((v) => v.startsWith('--'))).toBe(true)
    expect(complete('explain', '-').values).toEqual(expect.arrayContaining(['-n', '-A', '-o', '-l', '-f']))
    expect(complete('explain', '--no-h').values).toEqual(['--no-headers'])
  })

  it('completes option values, also after --flag=', () => {
    expect(complete('explain', '-o', '').values).toEqual(['table', 'wide', 'json', 'yaml'])
    expect(complete('explain', '--output=j').values).toEqual(['--output=json'])
    expect(complete('explain', '--color', '').values).toEqual(['auto', 'always', 'never'])
  })

  it('completes the Kubernetes names of modes and strategies (issue 19: one vocabulary), not the old ones', () => {
    expect(complete('apply', '--mode', '').values).toEqual(['Auto', 'PreferSameZone', 'PreferSameNode', 'PreferClose', 'none'])
    expect(complete('apply', '--strategy', '').values).toEqual(['Auto', 'PreferSameZone', 'PreferSameNode'])
    expect(complete('simulate', '--strategies', 'Pre').values).toEqual(['PreferClose', 'PreferSameZone', 'PreferSameNode'])
    expect(complete('simulate', '--strategies', 'Auto,n').values).toEqual(['Auto,none'])
    expect(complete('simulate', '--strategies=loc').values).toEqual(['--strategies=local', '--strategies=local-shared', '--strategies=local-weighted', '--strategies=local-opt'])
  })

  it('lets the shell complete file names for --from-file and --kubeconfig', () => {
    expect(complete('explain', '--from-file', '')).toMatchObject({values: [], directive: ':0'})
    expect(complete('explain', '--kubeconfig', 'ex')).toMatchObject({values: [], directive: ':0'})
  })

  it('completes Service names, namespaces and zones from a --from-file snapshot', () => {
    expect(complete('explain', '--from-file', EXAMPLE, '-n', 'shop', 'c').values).toEqual(['cart', 'catalog', 'checkout'])
    expect(complete('explain', '-f', EXAMPLE, '-n', 'shop', 'svc/ch').values).toEqual(['svc/checkout'])
    expect(complete('explain', '-f', EXAMPLE, '-n', '').values).toEqual(expect.arrayContaining(['default', 'shop']))
    const zones = complete('explain', '-f', EXAMPLE, '--traffic', '')
    expect(zones.values).toEqual(['eu-west-1a=', 'eu-west-1b=', 'eu-west-1c='])
    expect(zones.directive).toBe(':6')
  })

  it('is not turned into help by a --help already on the line, and never fails loudly', () => {
    expect(complete('explain', '--help', '-o', '').values).toEqual(['table', 'wide', 'json', 'yaml'])
    // No kubeconfig: no Service names, no error, exit 0.
    expect(complete('explain', '')).toMatchObject({code: 0, stderr: '', values: [], directive: ':4'})
    expect(complete('no-such-command', '')).toMatchObject({code: 0, stderr: '', values: [], directive: ':4'})
    expect(complete('explain', '-f', '/nonexistent.yaml', '')).toMatchObject({code: 0, stderr: '', values: []})
  })
})

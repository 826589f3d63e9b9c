// Issue 14 class 9: warnings go to stderr in every output format, as kubectl prints them; stdout
// holds only the report (-o json/yaml also carry them as data). `npm run build` first.
import {describe, expect, it} from 'vitest'
import {EXAMPLE, runCli} from './run-cli.js'

const WARNING = 'Warning: Kubernetes 1.20 is older than the oldest modelled version 1.28; predicting with 1.28 behaviour'
const svc = ['svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--kube-version', '1.20']

describe('a warning is on stderr, whatever the format', () => {
  const cases: string[][] = [
    ['explain', ...svc],
    ['explain', ...svc, '-o', 'wide'],
    ['explain', ...svc, '-o', 'json'],
    ['explain', ...svc, '-o', 'yaml'],
    ['check', ...svc],
    ['check', ...svc, '-o', 'json'],
    ['check', ...svc, '-o', 'junit'],
    ['simulate', ...svc],
    ['simulate', ...svc, '-o', 'json'],
    ['apply', ...svc, '--mode', 'none'],
  ]
  for (const args of cases) {
    it(`${args[0]} ${args.includes('-o') ? args[args.indexOf('-o') + 1] : 'default'}`, () => {
      const r = runCli(args)
      expect(r.stderr.split('\n')).toContain(WARNING)
      expect(r.stdout).not.toMatch(/^Warning:/m)
    })
  }
  it('explain -o json keeps the warning as data too', () => {
    expect(JSON.parse(runCli(['explain', ...svc, '-o', 'json']).stdout).warnings).toEqual([WARNING.slice('Warning: '.length)])
  })
})

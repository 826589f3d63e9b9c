// Issue 14 class 8: a bad numeric flag value says, on one line, what is wrong and what is
// accepted; --traffic naming a zone the cluster does not have is an error naming the zones.
// `npm run build` first.
import {describe, expect, it} from 'vitest'
import {EXAMPLE, runCli} from './run-cli.js'

const sim = ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE]

describe('numeric flags: one line, the value, what is accepted', () => {
  const cases: [string[], string][] = [
    [[...sim, '--replicas', '-3'], 'error: --replicas: invalid value "-3": expected an integer greater than or equal to 0 (see --help)'],
    [[...sim, '--replicas', 'abc'], 'error: --replicas: invalid value "abc": expected an integer (see --help)'],
    [[...sim, '--replicas', '1e9'], 'error: --replicas: invalid value "1e9": expected an integer (see --help)'],
    [[...sim, '--replicas', '200000'], 'error: --replicas: invalid value "200000": expected an integer less than or equal to 150000 (see --help)'],
    [[...sim, '--padding', '-1', '--previous-mode', 'subsetting'], 'error: --padding: invalid value "-1": expected an integer greater than or equal to 0 (see --help)'],
    [['simulate', '--synthetic', '--zones', '30'], 'error: --zones: invalid value "30": expected an integer less than or equal to 26 (see --help)'],
    [['simulate', '--dataset', 'balanced', '--clusters', '0'], 'error: --clusters: invalid value "0": expected an integer greater than or equal to 1 (see --help)'],
    [['check', '-A', '-f', EXAMPLE, '--min-endpoints-per-zone', '-1'], 'error: --min-endpoints-per-zone: invalid value "-1": use a whole number such as 2'],
  ]
  for (const [args, message] of cases) {
    it(args.filter((a) => a.startsWith('--')).join(' '), () => {
      const r = runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr.trimEnd()).toBe(message)
      expect(r.stdout).toBe('')
    })
  }
})

describe('--traffic names zones of the cluster', () => {
  for (const cmd of [
    ['explain', 'svc/checkout', '-n', 'shop'],
    ['check', 'svc/checkout', '-n', 'shop'],
    ['simulate', 'svc/checkout', '-n', 'shop'],
  ]) {
    it(`${cmd[0]}: an unknown zone is exit 2 naming the known zones`, () => {
      const r = runCli([...cmd, '-f', EXAMPLE, '--traffic', 'eu-west-1a=0.5,mars=0.5'])
      expect(r.code).toBe(2)
      expect(r.stderr.trimEnd()).toBe('error: --traffic: unknown zone "mars" (zones in the cluster: eu-west-1a, eu-west-1b, eu-west-1c)')
    })
  }
  it('known zones are accepted', () => {
    expect(runCli(['explain', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--traffic', 'eu-west-1a=0.5,eu-west-1b=0.5']).code).toBe(0)
  })
})

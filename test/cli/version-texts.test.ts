// Issue 13: where versions differ in what the user sees, the tool says what the cluster's own
// version does: apply refuses a trafficDistribution value the version's API server would refuse
// (1.31-1.33: only PreferClose) or drop silently (1.30), and explain's advice offers the value
// that version takes.
import {describe, expect, it} from 'vitest'
import {modeRefusal} from '../../src/apply/refusals.js'
import {sameZoneValue} from '../../src/explain/advice.js'
import {features} from '../../src/upstream/features.js'
import {EXAMPLE, runCli} from './run-cli.js'

describe('modeRefusal: the API server of each version', () => {
  it.each([
    ['1.30', 'PreferClose', /drops spec\.trafficDistribution .*use --mode Auto/],
    ['1.30', 'PreferSameZone', /drops spec\.trafficDistribution/],
    ['1.31', 'PreferSameZone', /accepts only "PreferClose" .*use --mode PreferClose \(the same zone hints/],
    ['1.33', 'PreferSameNode', /accepts only "PreferClose" .*node hints need 1\.34/],
  ] as const)('%s refuses --mode %s', (v, mode, re) => {
    const r = modeRefusal(mode, features(v), false)
    expect(r.refusal?.kind).toBe('usage')
    expect(r.refusal?.message).toMatch(re)
    expect(r.refusal?.message).toMatch(/nothing was written/)
  })
  it.each([
    ['1.30', 'Auto'],
    ['1.30', 'none'],
    ['1.31', 'PreferClose'],
    ['1.34', 'PreferSameZone'],
    ['1.34', 'PreferSameNode'],
    ['1.37', 'PreferClose'],
  ] as const)('%s takes --mode %s', (v, mode) => {
    expect(modeRefusal(mode, features(v), false)).toEqual({refusal: null, warning: null})
  })
  it('--force-value sends it anyway, with a warning (issue 23: was --force)', () => {
    const r = modeRefusal('PreferSameZone', features('1.33'), true)
    expect(r.refusal).toBeNull()
    expect(r.warning).toMatch(/^--force-value: at Kubernetes 1\.33 .*sending it anyway$/)
  })
})

describe('the same-zone value each version takes', () => {
  it.each([
    ['1.28', null],
    ['1.30', null],
    ['1.31', 'PreferClose'],
    ['1.33', 'PreferClose'],
    ['1.34', 'PreferSameZone'],
    ['1.37', 'PreferSameZone'],
  ] as const)('%s: %s', (v, want) => expect(sameZoneValue(features(v))).toBe(want))
})

describe('explain and apply on the bundled example at older versions (built CLI)', () => {
  const advice = (v: string) => {
    const r = runCli(['explain', 'svc/inventory', '-n', 'shop', '-f', EXAMPLE, '--kube-version', v, '-o', 'json'])
    expect(r.code).toBe(0)
    return (JSON.parse(r.stdout) as {services: {recommendation: {steps: {command: string; alternative: string | null}[]}}[]}).services[0]!.recommendation.steps[0]
  }
  it('advises the value the version takes', () => {
    expect(advice('1.36')?.command).toBe('kubectl topology apply svc/inventory -n shop --mode PreferSameZone --yes')
    expect(advice('1.32')?.command).toBe('kubectl topology apply svc/inventory -n shop --mode PreferClose --yes')
    expect(advice('1.32')?.alternative).toBe(`kubectl patch service inventory -n shop --type=merge -p '{"spec":{"trafficDistribution":"PreferClose"}}'`)
    // 1.30 drops spec.trafficDistribution: the annotation, replacing the ignored "AUTO".
    expect(advice('1.30')?.command).toBe('kubectl topology apply svc/inventory -n shop --mode Auto --yes')
    expect(advice('1.30')?.alternative).toBe(
      `kubectl patch service inventory -n shop --type=merge -p '{"metadata":{"annotations":{"service.kubernetes.io/topology-mode":"Auto"}}}'`,
    )
  })
  it('apply --mode PreferSameZone at 1.32: one line, exit 2, nothing written', () => {
    const r = runCli(['apply', 'svc/inventory', '-n', 'shop', '-f', EXAMPLE, '--kube-version', '1.32', '--mode', 'PreferSameZone'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^error: at Kubernetes 1\.32 the API server accepts only "PreferClose"/)
  })
})

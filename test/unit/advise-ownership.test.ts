// The printed `apply --mode` carries --force-conflicts (was --force, which also meant "send a refused value", issue 23) exactly when server-side apply would refuse it: the
// change sets a field to a new value that another field manager owns (found by the e2e advice
// suite on 1.30: a Service created with annotation AUTO by another client, advice `--mode Auto`,
// apply exited 8 with a server-side apply conflict).
import {describe, expect, it} from 'vitest'
import {modeStep, takesOwnership} from '../../src/advise/commands.js'
import type {Service} from '../../src/upstream/api/types.js'

const expectation = {mode: 'Auto' as const, hints: true, inZone: 1}

function svc(annotations: Record<string, string>, managedFields: unknown[], trafficDistribution?: string): Service {
  return {
    metadata: {name: 'web', namespace: 'shop', annotations, managedFields} as Service['metadata'],
    spec: {selector: {app: 'web'}, ...(trafficDistribution ? {trafficDistribution} : {})},
  } as Service
}

const ownsMode = (manager: string, operation = 'Update') => ({
  manager,
  operation,
  fieldsV1: {'f:metadata': {'f:annotations': {'f:service.kubernetes.io/topology-mode': {}}}},
})

describe('advice: --force-conflicts where another manager owns a field the change sets', () => {
  it('AUTO written by another client, advice Auto: --force-conflicts', () => {
    const s = svc({'service.kubernetes.io/topology-mode': 'AUTO'}, [ownsMode('kubernetes-client-javascript')])
    expect(takesOwnership(s, 'Auto')).toBe(true)
    expect(modeStep(s, 'Auto', expectation)?.command).toBe('kubectl topology apply svc/web -n shop --mode Auto --yes --force-conflicts')
  })
  it('the same field owned by kubectl-topology itself (Apply): no --force', () => {
    const s = svc({'service.kubernetes.io/topology-mode': 'AUTO'}, [ownsMode('kubectl-topology', 'Apply')])
    expect(takesOwnership(s, 'Auto')).toBe(false)
    expect(modeStep(s, 'Auto', expectation)?.command).toBe('kubectl topology apply svc/web -n shop --mode Auto --yes')
  })
  it('a removal is not a conflict (apply removes it with a merge patch): no --force', () => {
    const s = svc({'service.kubernetes.io/topology-mode': 'Auto'}, [ownsMode('kubectl')])
    expect(takesOwnership(s, 'none')).toBe(false)
  })
  it('no managedFields (a snapshot): no --force', () => {
    const s = svc({'service.kubernetes.io/topology-mode': 'AUTO'}, [])
    expect(takesOwnership(s, 'Auto')).toBe(false)
  })
})

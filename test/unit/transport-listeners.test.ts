// Every transport closes its shared Agents at 'beforeExit' through ONE process listener: with one
// listener each, a process holding more than ten transports (serve with several contexts, apply's
// re-reads) printed Node's MaxListenersExceededWarning on stderr, where the CLI promises one
// line per problem and tests assert an empty stderr.
import {KubeConfig} from '@kubernetes/client-node'
import {describe, expect, it} from 'vitest'
import {installTransport} from '../../src/cluster/http.js'
import * as k8s from '../../src/cluster/k8s.js'

describe('transport: one beforeExit listener for any number of transports', () => {
  it('twelve transports add at most one listener', () => {
    const before = process.listenerCount('beforeExit')
    for (let i = 0; i < 12; i++) {
      const kc = new KubeConfig()
      kc.loadFromOptions({
        clusters: [{name: 'c', server: `https://127.0.0.1:${6443 + i}`, skipTLSVerify: true}],
        users: [{name: 'u', token: 't'}],
        contexts: [{name: 'x', cluster: 'c', user: 'u'}],
        currentContext: 'x',
      })
      installTransport(k8s, kc, 1000)
    }
    expect(process.listenerCount('beforeExit') - before).toBeLessThanOrEqual(1)
  })
})

// explain's diagnostic notes under each Service, and the nearest ready-endpoint counts the
// controller accepts (the advisor's, src/advise/advisor.ts, for Auto refused at today's count).
import type {Advice, ServiceExplanation} from './report-types.js'
import type {ZoneCapacity} from './node-verdicts.js'
import {getAllocations} from '../upstream/endpointslice/topologycache/topologycache.js'
import {LABEL_ZONE} from '../upstream/api/types.js'
import {sortStrings} from './helpers.js'
import {acceptedTrafficDistributions, type Features} from '../upstream/features.js'

/**
 * The trafficDistribution value that hints every endpoint to its own zone at this version, or
 * null where the field does not exist: PreferSameZone where the API server takes it (1.34+),
 * else PreferClose (1.31-1.33, the same zone hints: trafficdist.go), else none (1.30).
 */
export function sameZoneValue(f: Features): 'PreferSameZone' | 'PreferClose' | null {
  const accepted = acceptedTrafficDistributions(f)
  return accepted.includes('PreferSameZone') ? 'PreferSameZone' : accepted.includes('PreferClose') ? 'PreferClose' : null
}

/** Nearest ready-endpoint counts the controller accepts (feasibility is not monotonic in N). */
export function acceptedCounts(n: number, ratios: Record<string, number>, howMany = 3): {below: number[]; above: number[]} {
  const below: number[] = []
  const above: number[] = []
  for (let k = n - 1; k >= 1 && below.length < howMany; k--) if (getAllocations(k, ratios).ok) below.push(k)
  for (let k = n + 1; k <= n + 10 * Object.keys(ratios).length + 20 && above.length < howMany; k++) if (getAllocations(k, ratios).ok) above.push(k)
  return {below, above}
}

/**
 * explain's diagnostic notes under each Service: nodes that disable hints, endpoints without a
 * zone, fallback, drift, the data plane, lint. The mode and scale advice is the advisor's
 * (src/advise/advisor.ts), attached by src/advise/report.ts.
 */
export function advise(s: ServiceExplanation, capacity: ZoneCapacity, nodesReadable: boolean): Advice[] {
  const advice: Advice[] = []
  if (!nodesReadable) {
    advice.push({
      code: 'nodes-unreadable',
      message: 'Nodes could not be read (RBAC): zone CPU shares and the Auto allocation are unknown; ask for "list nodes" or run with a snapshot that includes Nodes.',
    })
  }
  const routed = s.applicability.proxied && s.mode.managedByController
  if (routed && s.mode.path === 'topology-mode-auto' && !s.controller.hintsSet) {
    const msg = s.controller.message
    if (msg.startsWith('Insufficient Node information')) {
      const bad = sortStrings(capacity.nodes.filter((v) => v.disablesHints).map((v) => `${v.name} (${v.status})`))
      advice.push({
        code: 'fix-nodes',
        message:
          bad.length > 0
            ? `Every ready worker node needs a ${LABEL_ZONE} label and allocatable CPU; these nodes disable hints for every Service: ${bad.join(', ')}.`
            : 'Hints need ready worker nodes in at least 2 zones.',
      })
    } else if (msg.startsWith('One or more endpoints do not have a zone')) {
      advice.push({
        code: 'endpoint-zone',
        message: 'A ready endpoint has no zone: its node lacks the topology.kubernetes.io/zone label (or the node is unknown to the controller).',
      })
    }
  }
  if (s.findings.includes('fallback')) {
    const zones = s.zones
      .filter((z) => z.kubeProxy.fallback && z.kubeProxy.reason !== 'no-endpoints' && z.kubeProxy.reason !== 'no-ready-endpoints')
      .map((z) => `${z.name} (${z.kubeProxy.reason})`)
    advice.push({code: 'fallback', message: `kube-proxy ignores the hints in ${zones.join(', ')}: traffic from there goes to every endpoint.`})
  }
  if (s.findings.includes('drift')) {
    advice.push({
      code: 'drift',
      message: `The live hints of ${s.drift.endpoints} endpoint(s) differ from what the controller writes at its next sync (${s.controller.slicesToUpdate.join(', ') || 'no slice rewrite pending'}); the controller rewrites them when it next syncs the Service.`,
    })
  }
  if (s.dataPlane?.fix) advice.push({code: 'data-plane', message: `Data plane: ${s.dataPlane.fix}.`})
  for (const w of s.lint) advice.push({code: 'lint', message: w.message})
  return advice
}

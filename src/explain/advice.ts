// What to do: the advice explain prints under each Service, from the explanation itself, and
// the nearest ready-endpoint counts the controller accepts.
import type {Advice, ServiceExplanation} from './report.js'
import type {ZoneCapacity} from './node-verdicts.js'
import {getAllocations} from '../upstream/endpointslice/topologycache/topologycache.js'
import {LABEL_ZONE} from '../upstream/api/types.js'
import {sortStrings} from './helpers.js'
import {acceptedTrafficDistributions, formatVersion, type Features} from '../upstream/features.js'

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

export function advise(s: ServiceExplanation, capacity: ZoneCapacity, ratios: Record<string, number> | null, nodesReadable: boolean, f: Features): Advice[] {
  const advice: Advice[] = []
  const sameZone = sameZoneValue(f)
  const v = formatVersion(f.version)
  const ref = `svc/${s.name} -n ${s.namespace}`
  const patch = (td: string) => `kubectl patch service ${s.name} -n ${s.namespace} --type=merge -p '{"spec":{"trafficDistribution":"${td}"}}'`
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
    } else if (msg.startsWith('Insufficient number of endpoints') || msg.startsWith('Unable to allocate minimum')) {
      if (ratios) {
        const {below, above} = acceptedCounts(s.controller.totalReadyEndpoints, ratios)
        const options = [...below.slice(0, 1), ...above].sort((a, b) => a - b)
        advice.push({
          code: 'scale',
          message: `With these zone CPU shares the controller accepts ${options.join(', ')} ready endpoints (now ${s.controller.totalReadyEndpoints}); feasibility is not monotonic, so check the count you scale to.`,
        })
      }
    } else if (msg.startsWith('One or more endpoints do not have a zone')) {
      advice.push({
        code: 'endpoint-zone',
        message: 'A ready endpoint has no zone: its node lacks the topology.kubernetes.io/zone label (or the node is unknown to the controller).',
      })
    }
    if (sameZone === null) {
      advice.push({
        code: 'mode',
        message: `spec.trafficDistribution (zone hints without the CPU arithmetic or its refusals) needs Kubernetes 1.31: at ${v} the API server drops it (ServiceTrafficDistribution gate, off by default).`,
      })
    } else {
      advice.push({
        code: 'mode',
        message:
          sameZone === 'PreferSameZone'
            ? 'PreferSameZone hints every endpoint to its own zone without the CPU arithmetic or its refusals.'
            : `PreferClose hints every endpoint to its own zone without the CPU arithmetic or its refusals (at Kubernetes ${v} the API server accepts only PreferClose; PreferSameZone, its newer name, from 1.34).`,
        command: `kubectl topology apply ${ref} --mode ${sameZone}   (or: ${patch(sameZone)})`,
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
  if (routed && s.mode.path === 'none' && s.zones.filter((z) => z.nodes.counted > 0).length >= 2) {
    advice.push({
      code: 'enable',
      message:
        sameZone === null
          ? `Topology-aware routing is off for this Service (at Kubernetes ${v} only the topology-mode annotation enables it).`
          : 'Topology-aware routing is off for this Service.',
      command:
        sameZone === null
          ? `kubectl topology apply ${ref} --mode Auto   (or: kubectl annotate service ${s.name} -n ${s.namespace} service.kubernetes.io/topology-mode=Auto)`
          : `kubectl topology apply ${ref} --mode ${sameZone}   (or: ${patch(sameZone)})`,
    })
  }
  if (s.dataPlane?.fix) advice.push({code: 'data-plane', message: `Data plane: ${s.dataPlane.fix}.`})
  for (const w of s.lint) advice.push({code: 'lint', message: w.message})
  return advice
}

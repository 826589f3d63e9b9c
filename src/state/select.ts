// Which Services a command works on, from names / -l / -n / -A, applied to a snapshot the
// way the API server applies them to a live list.
import {matchesSelector, parseSelector} from '../upstream/apimachinery/labels.js'
import type {Service} from '../upstream/api/types.js'
import {validateObjectName} from '../upstream/apimachinery/validation.js'
import type {ClusterState} from './cluster-state.js'

export interface ServiceQuery {
  namespace?: string
  allNamespaces?: boolean
  names?: string[]
  labelSelector?: string
}

export interface Selection {
  services: Service[]
  /** Names asked for that do not exist in the namespace. */
  missing: string[]
  /** Names of the namespace's Services, for "did you mean" suggestions. */
  candidates: string[]
  /** True when the namespace holds nothing at all (no Service, no EndpointSlice). */
  namespaceEmpty: boolean
  /** For each missing name: the other namespaces of the state that hold a Service of that name, sorted. */
  elsewhere: Record<string, string[]>
}

export function selectServices(state: ClusterState, q: ServiceQuery): Selection {
  const ns = q.namespace ?? 'default'
  const inScope = state.services.filter((s) => q.allNamespaces || (s.metadata.namespace ?? 'default') === ns)
  const reqs = q.labelSelector ? parseSelector(q.labelSelector) : []
  const names = q.names ?? []
  let services: Service[]
  const missing: string[] = []
  if (names.length > 0) {
    services = []
    for (const n of names) {
      const s = inScope.find((x) => x.metadata.name === n)
      if (s) services.push(s)
      else missing.push(n)
    }
  } else {
    services = inScope.filter((s) => matchesSelector(reqs, s.metadata.labels))
  }
  // Code-unit order: the same for every user locale (namespaces and names are DNS labels, in
  // which it equals en-US collation), and no ICU collator to load (~20 ms at first use).
  services.sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    return ka < kb ? -1 : ka > kb ? 1 : 0
  })
  const namespaceEmpty = !q.allNamespaces && inScope.length === 0 && !state.endpointSlices.some((s) => (s.metadata.namespace ?? 'default') === ns)
  const elsewhere: Record<string, string[]> = {}
  for (const n of missing) {
    const where = state.services.filter((s) => s.metadata.name === n).map((s) => s.metadata.namespace ?? 'default')
    if (where.length > 0) elsewhere[n] = [...new Set(where)].sort()
  }
  return {services, missing, candidates: inScope.map((s) => s.metadata.name), namespaceEmpty, elsewhere}
}

const key = (s: Service) => `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`

/**
 * Why a namespace or Service name given on the command line (or by a kubeconfig context) is not
 * one the API server accepts (its own rules: upstream/apimachinery/validation.ts), or null. Checked
 * before any use in a path (the apply journal: `-n ../../..` placed it outside the state folder)
 * or a URL (issue 20, class 6). `what` names where it came from ("-n", "context \"dev\"").
 */
export function nameProblem(q: {namespace?: string | undefined; names?: readonly string[]; namespaceFrom?: string}): string | null {
  if (q.namespace !== undefined) {
    const errs = validateObjectName('Namespace', q.namespace)
    if (errs.length > 0) return `${q.namespaceFrom ?? '-n'} ${JSON.stringify(q.namespace)} is not a valid namespace name: ${errs[0]}`
  }
  for (const name of q.names ?? []) {
    const errs = validateObjectName('Service', name)
    if (errs.length > 0) return `${JSON.stringify(name)} is not a valid Service name: ${errs[0]}`
  }
  return null
}

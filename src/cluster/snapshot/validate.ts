// The types of the fields the engines read, checked once when a snapshot is decoded (issue 14:
// no input file makes a command fail with an internal error). A snapshot is what an API server
// returned, or a hand-written file: a value no API server can return (a number where a string
// belongs, a mapping where a list belongs, a port of 1.5, NaN, a serverVersion that is not a
// version) is refused with one line naming the file (line:column), the object and the field:
//
//   snapshot.yaml:12:27: Service "shop/web": spec.trafficDistribution must be a string, found a number (42)
//
// What an API server could return is kept as is, even when the engines do not know it (an
// unknown trafficDistribution string: the API server stores it, the controller ignores it).
// Tolerated and normalised, as for metadata.labels (snapshot.ts): a scalar label value in a
// label selector or a pod template (`app: 1` in hand-written YAML) is read as the string the API
// server would have stored. null is an unset field everywhere. docs/snapshot.md "What a
// snapshot may hold" lists these rules.
import {parseVersion} from '../../upstream/features.js'

type Obj = Record<string, unknown>
type Path = (string | number)[]

/** What snapshot.ts's collector found: one object, where it is. */
export interface FoundObject {
  kind: 'Node' | 'Service' | 'EndpointSlice' | 'Event' | 'Deployment' | 'StatefulSet' | 'HorizontalPodAutoscaler' | 'PodDisruptionBudget'
  obj: Obj
  doc: number
  path: Path
}

/** Throws the decoder's input error at (document, path). */
export type Fail = (doc: number, path: Path, message: string) => never

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A field's type. `labels`: a mapping whose scalar values are read as strings. */
type Type = 'string' | 'boolean' | 'int' | 'port' | 'count' | 'quantity' | 'int-or-string' | 'int-or-percent' | 'labels' | {map: Record<string, Type>} | {list: Type}

const INT32_MAX = 2 ** 31 - 1

const strings: Type = {list: 'string'}

const META: Record<string, Type> = {
  name: 'string',
  namespace: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
}

const NODE: Record<string, Type> = {
  spec: {map: {unschedulable: 'boolean'}},
  status: {
    map: {
      allocatable: {map: {cpu: 'quantity'}},
      capacity: {map: {cpu: 'quantity'}},
      conditions: {list: {map: {type: 'string', status: 'string', reason: 'string'}}},
    },
  },
}

const SERVICE: Record<string, Type> = {
  spec: {
    map: {
      type: 'string',
      selector: 'labels',
      ports: {list: {map: {name: 'string', port: 'port', protocol: 'string', nodePort: 'port', targetPort: 'int-or-string'}}},
      clusterIP: 'string',
      clusterIPs: strings,
      externalIPs: strings,
      trafficDistribution: 'string',
      internalTrafficPolicy: 'string',
      externalTrafficPolicy: 'string',
      publishNotReadyAddresses: 'boolean',
      ipFamilies: strings,
    },
  },
  status: {map: {loadBalancer: {map: {ingress: {list: {map: {ip: 'string', hostname: 'string', ipMode: 'string'}}}}}}},
}

const HINT_NAMES: Type = {list: {map: {name: 'string'}}}

const ENDPOINT_SLICE: Record<string, Type> = {
  endpoints: {
    list: {
      map: {
        addresses: strings,
        conditions: {map: {ready: 'boolean', serving: 'boolean', terminating: 'boolean'}},
        hostname: 'string',
        nodeName: 'string',
        zone: 'string',
        hints: {map: {forZones: HINT_NAMES, forNodes: HINT_NAMES}},
        targetRef: {map: {kind: 'string', name: 'string', namespace: 'string', uid: 'string'}},
      },
    },
  },
  ports: {list: {map: {name: 'string', port: 'port', protocol: 'string', appProtocol: 'string'}}},
}

const EVENT: Record<string, Type> = {
  involvedObject: {map: {kind: 'string', name: 'string', namespace: 'string', uid: 'string'}},
  reason: 'string',
  message: 'string',
  type: 'string',
  count: 'count',
  source: {map: {component: 'string', host: 'string'}},
  reportingComponent: 'string',
  lastTimestamp: 'string',
  eventTime: 'string',
  firstTimestamp: 'string',
}

const WORKLOAD_COMMON: Record<string, Type> = {
  replicas: 'count',
  selector: {map: {matchLabels: 'labels', matchExpressions: {list: {map: {key: 'string', operator: 'string', values: strings}}}}},
  template: {
    map: {
      metadata: {map: {labels: 'labels'}},
      // plan's placement model reads the zone spread constraint.
      spec: {map: {topologySpreadConstraints: {list: {map: {maxSkew: 'int', topologyKey: 'string', whenUnsatisfiable: 'string', minDomains: 'int'}}}}},
    },
  },
}

const SELECTOR: Type = {map: {matchLabels: 'labels', matchExpressions: {list: {map: {key: 'string', operator: 'string', values: strings}}}}}

/** plan reads an HPA's target and bounds, a PDB's selector and budget. */
const HPA: Record<string, Type> = {
  spec: {map: {scaleTargetRef: {map: {apiVersion: 'string', kind: 'string', name: 'string'}}, minReplicas: 'count', maxReplicas: 'count'}},
}
const PDB: Record<string, Type> = {
  spec: {map: {selector: SELECTOR, minAvailable: 'int-or-percent', maxUnavailable: 'int-or-percent'}},
}

const DEPLOYMENT: Record<string, Type> = {
  spec: {
    map: {
      ...WORKLOAD_COMMON,
      strategy: {map: {type: 'string', rollingUpdate: {map: {maxSurge: 'int-or-percent', maxUnavailable: 'int-or-percent'}}}},
      paused: 'boolean',
    },
  },
}

const STATEFUL_SET: Record<string, Type> = {
  spec: {
    map: {
      ...WORKLOAD_COMMON,
      serviceName: 'string',
      podManagementPolicy: 'string',
      updateStrategy: {map: {type: 'string', rollingUpdate: {map: {partition: 'count', maxUnavailable: 'int-or-percent'}}}},
    },
  },
}

const FIELDS: Record<FoundObject['kind'], Record<string, Type>> = {
  Node: NODE,
  Service: SERVICE,
  EndpointSlice: ENDPOINT_SLICE,
  Event: EVENT,
  Deployment: DEPLOYMENT,
  StatefulSet: STATEFUL_SET,
  HorizontalPodAutoscaler: HPA,
  PodDisruptionBudget: PDB,
}

/** "a number (42)", "a list", "a string ("x")": what was found, short. */
function found(v: unknown): string {
  if (Array.isArray(v)) return 'a list'
  if (isObj(v)) return 'a mapping'
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`
  if (typeof v === 'number') return `a number (${v})`
  return v === undefined ? 'nothing' : String(v) // null, true, false
}

const INT_OR_PERCENT = /^\s*\d+%?\s*$/

/** Why `v` is not of type `t` (null when it is), for the scalar types. */
function scalarProblem(t: Exclude<Type, object>, v: unknown): string | null {
  switch (t) {
    case 'string':
      return typeof v === 'string' ? null : 'must be a string'
    case 'boolean':
      return typeof v === 'boolean' ? null : 'must be true or false'
    case 'int':
      return Number.isSafeInteger(v) ? null : 'must be an integer'
    case 'count':
      return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= INT32_MAX ? null : `must be an integer from 0 to ${INT32_MAX}`
    case 'port':
      return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? null : 'must be a port number (an integer from 0 to 65535)'
    case 'quantity':
      return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? null : 'must be a quantity such as "4" or "3500m"'
    case 'int-or-string':
      return typeof v === 'string' || Number.isSafeInteger(v) ? null : 'must be an integer or a string'
    case 'int-or-percent':
      if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= INT32_MAX ? null : 'must be a non-negative integer or a percentage such as "25%"'
      return typeof v === 'string' && INT_OR_PERCENT.test(v) ? null : 'must be a non-negative integer or a percentage such as "25%"'
    case 'labels':
      return isObj(v) ? null : 'must be a mapping'
  }
}

/** A problem found by a check: the path to the value (from where the check started) and what is wrong. */
type Problem = {path: Path; message: string}

/** Checks a value (not null) against one type; returns the problem or null. */
type Check = (value: unknown) => Problem | null

const problemOf = (why: string, v: unknown): Problem => ({path: [], message: `${why}, found ${found(v)}`})

/**
 * The check of a type, made once per type: the checks visit every endpoint of every slice
 * (issue 14: 50,000 of them), so they decide nothing per value that the type already says, and
 * the path of a problem is made as they return from it: checking a valid object allocates
 * nothing. A labels check normalises the values in place.
 */
function compile(t: Type): Check {
  if (t === 'string') return (v) => (typeof v === 'string' ? null : problemOf('must be a string', v))
  if (t === 'boolean') return (v) => (typeof v === 'boolean' ? null : problemOf('must be true or false', v))
  if (typeof t === 'string') {
    return (v) => {
      const problem = scalarProblem(t, v)
      if (problem !== null) return problemOf(problem, v)
      if (t === 'labels') {
        const m = v as Obj
        for (const [k, x] of Object.entries(m)) {
          // As snapshot.ts reads metadata.labels: the API server would have stored a string.
          if (typeof x !== 'string') m[k] = x === null ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x)
        }
      }
      return null
    }
  }
  if ('list' in t) {
    const item = compile(t.list)
    const itemType = t.list
    return (v) => {
      if (!Array.isArray(v)) return problemOf('must be a list', v)
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i]
        const r = x === null || x === undefined ? problemOf(typeof itemType === 'object' ? 'must be a mapping' : (scalarProblem(itemType, x) ?? 'must be set'), x) : item(x)
        if (r) {
          r.path.unshift(i)
          return r
        }
      }
      return null
    }
  }
  const keys = Object.keys(t.map)
  const checks = keys.map((k) => compile(t.map[k]!))
  // A string or boolean field is checked here, without a call (issue 23: about a million fields
  // for 50,000 endpoints); an inherited value is skipped as before, asked only when it fails.
  const scalar = keys.map((k) => (t.map[k] === 'string' ? 'string' : t.map[k] === 'boolean' ? 'boolean' : undefined))
  return (v) => {
    if (!isObj(v)) return problemOf('must be a mapping', v)
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!
      const x = v[k]
      if (x === null || x === undefined) continue
      const s = scalar[i]
      if (s !== undefined && typeof x === s) continue
      if (!Object.hasOwn(v, k)) continue
      const r = checks[i]!(x)
      if (r) {
        r.path.unshift(k)
        return r
      }
    }
    return null
  }
}

/** Each kind's check, metadata included. */
const CHECK = {} as Record<FoundObject['kind'], Check>
for (const kind of Object.keys(FIELDS) as FoundObject['kind'][]) CHECK[kind] = compile({map: {metadata: {map: META}, ...FIELDS[kind]}})

/** "spec.ports[0].port" */
function fieldPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('')
}

const describe = (o: FoundObject): string => {
  const meta = isObj(o.obj.metadata) ? o.obj.metadata : {}
  const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/` : o.kind === 'Node' ? '' : 'default/'
  return `${o.kind} "${ns}${typeof meta.name === 'string' ? meta.name : '?'}"`
}

/**
 * Checks what the decoder found (after its own checks of the objects' shape): every field the
 * engines read has the type the API gives it, and a Snapshot's serverVersion is a version.
 * Throws through `fail` at the first problem; normalises label-selector values in place.
 */
export function validateSnapshot(input: {found: readonly FoundObject[]; serverVersion: string | undefined; docs: readonly unknown[]}, fail: Fail): void {
  if (input.serverVersion !== undefined) {
    try {
      parseVersion(input.serverVersion)
    } catch (e) {
      const at = snapshotDocument(input.docs)
      fail(at.doc, [...at.path, 'serverVersion'], `serverVersion: ${(e as Error).message}`)
    }
  }
  for (const o of input.found) {
    if (o.kind === 'Event' && typeof o.obj.apiVersion === 'string' && o.obj.apiVersion.startsWith('events.k8s.io/')) continue // read field by field (snapshot.ts)
    const r = CHECK[o.kind](o.obj)
    if (r) fail(o.doc, [...o.path, ...r.path], `${describe(o)}: ${fieldPath(r.path)} ${r.message}`)
  }
}

/** Where the Snapshot document holding serverVersion is: a document, or an item of one. */
function snapshotDocument(docs: readonly unknown[]): {doc: number; path: Path} {
  const isSnapshot = (v: unknown) => isObj(v) && v.kind === 'Snapshot' && v.serverVersion !== undefined
  for (let d = 0; d < docs.length; d++) {
    const v = docs[d]
    if (isSnapshot(v)) return {doc: d, path: []}
    const items = Array.isArray(v) ? v : isObj(v) && Array.isArray(v.items) ? v.items : []
    const i = items.findIndex(isSnapshot)
    if (i >= 0) return {doc: d, path: Array.isArray(v) ? [i] : ['items', i]}
  }
  return {doc: 0, path: []}
}

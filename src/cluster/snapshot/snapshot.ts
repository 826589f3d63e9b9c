// Snapshot files: what `explain --from-file` reads and `snapshot` writes.
//
// Accepted input: `kubectl get nodes,services,endpointslices -A -o json|yaml` (a v1 List),
// typed lists (NodeList, …), multi-document YAML (each document an object or a List), a
// JSON array, and our own `kubectl-topology/v1` Snapshot. Other kinds are ignored.
// Errors name the file, line and column.

import fs from 'node:fs/promises'
import {constructFromEvents, CORE_SCHEMA, defineMappingTag, defineScalarTag, EVENT_ID, mapTag, NOT_RESOLVED, parseEvents, SCALAR_STYLE} from 'js-yaml'
import {isMap, isSeq, LineCounter, parseAllDocuments, stringify, type Document} from 'yaml'
import {CliError, ExitCode} from '../../errors.js'
import {describeFileError} from '../files.js'
import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE, LABEL_HOSTNAME, type Deployment, type Endpoint, type EndpointSlice, type EventObject, type Node, type ObjectMeta, type Service, type StatefulSet} from '../../upstream/api/types.js'
import type {ClusterState} from '../../state/cluster-state.js'
import {validateSnapshot} from './validate.js'

export const SNAPSHOT_API_VERSION = 'kubectl-topology/v1'
export const SNAPSHOT_KIND = 'Snapshot'

export interface Snapshot {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: typeof SNAPSHOT_KIND
  serverVersion?: string
  /** Present (false) only when the Nodes could not be read. */
  nodesReadable?: boolean
  nodes: Node[]
  services: Service[]
  endpointSlices: EndpointSlice[]
  events?: EventObject[]
  /** The Deployments and StatefulSets behind the Services (absent: not read). */
  deployments?: Deployment[]
  statefulSets?: StatefulSet[]
}

type Obj = Record<string, unknown>
type Path = (string | number)[]
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

const EXPECTED =
  'expected the output of `kubectl get nodes,services,endpointslices -A -o yaml` or of `kubectl topology snapshot`'

const displayName = (source: string) => (source === '-' ? '<stdin>' : source)

function inputError(msg: string): CliError {
  return new CliError(msg.replace(/\s*\n\s*/g, ' '), ExitCode.INPUT)
}

function lineCol(text: string, offset: number): {line: number; col: number} {
  let line = 1
  let last = -1
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      last = i
    }
  }
  return {line, col: offset - last}
}

// ---- parsing -----------------------------------------------------------------------------

interface Parsed {
  docs: unknown[]
  /** Finds the line:column of a value by document index and path. */
  locate(doc: number, path: Path): {line: number; col: number} | undefined
}

function parseYamlText(text: string, source: string): Parsed {
  const lineCounter = new LineCounter()
  const documents = parseAllDocuments(text, {lineCounter, prettyErrors: true})
  const list: Document[] = Array.isArray(documents) ? documents : []
  for (const d of list) {
    const err = d.errors[0]
    if (err) {
      const pos = err.linePos?.[0]
      const msg = (err.message.split('\n')[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, '')
      throw inputError(`${displayName(source)}${pos ? `:${pos.line}:${pos.col}` : ''}: ${msg}`)
    }
  }
  let docs: unknown[]
  try {
    docs = list.map((d) => d.toJS({maxAliasCount: 10_000}))
  } catch (e) {
    throw inputError(`${displayName(source)}: ${(e as Error).message}`)
  }
  return {
    docs,
    locate(doc, path) {
      const d = list[doc]
      if (!d) return undefined
      for (let n = path.length; n >= 0; n--) {
        const node = n === 0 ? d.contents : d.getIn(path.slice(0, n), true)
        const r = (node as {range?: [number, number, number]} | null | undefined)?.range
        if (r) return lineCounter.linePos(r[0])
      }
      return undefined
    },
  }
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Splits a JSON text into its top-level values (`jq` prints a stream of objects) and
 * finds the offset of the first syntax error. Only used when JSON.parse fails, whose
 * messages do not always carry a position.
 */
function scanJsonStream(text: string): [number, number][] {
  const n = text.length
  let i = 0
  const show = (c: string | undefined) => (c === undefined ? 'end of input' : JSON.stringify(c))
  const fail = (msg: string): never => {
    throw new JsonSyntaxError(i, i >= n ? 'unexpected end of JSON input' : msg)
  }
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
  }
  const str = () => {
    i++ // opening quote
    for (;;) {
      if (i >= n) fail('unterminated string')
      const c = text[i]!
      if (c === '"') {
        i++
        return
      }
      if (c === '\\') {
        const e = text[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            fail('invalid \\u escape in string')
          }
          i += 6
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2
        } else {
          fail(`invalid escape ${show(`\\${e ?? ''}`)} in string`)
        }
        continue
      }
      if (c < ' ') fail('control character in string')
      i++
    }
  }
  const num = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  const value = (depth: number): void => {
    if (depth > 10_000) fail('nesting too deep')
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        ws()
        if (text[i] !== '"') fail(`expected a double-quoted property name, found ${show(text[i])}`)
        str()
        ws()
        if (text[i] !== ':') fail(`expected ':' after property name, found ${show(text[i])}`)
        i++
        value(depth + 1)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') {
          i++
          return
        }
        fail(`expected ',' or '}' after property value, found ${show(text[i])}`)
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') {
        i++
        return
      }
      for (;;) {
        value(depth + 1)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') {
          i++
          return
        }
        fail(`expected ',' or ']' after array element, found ${show(text[i])}`)
      }
    }
    if (c === '"') return str()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      num.lastIndex = i
      if (!num.exec(text)) fail(`invalid number`)
      i = num.lastIndex
      return
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return
      }
    }
    fail(`unexpected ${show(c)}`)
  }
  const segments: [number, number][] = []
  ws()
  while (i < n) {
    const start = i
    value(0)
    segments.push([start, i])
    ws()
  }
  return segments
}

function parseJsonText(text: string, source: string): Parsed {
  let segments: [number, number][]
  let docs: unknown[]
  try {
    docs = [JSON.parse(text)]
    segments = [[0, text.length]]
  } catch (e) {
    try {
      segments = scanJsonStream(text)
    } catch (se) {
      if (!(se instanceof JsonSyntaxError)) throw se
      const pos = lineCol(text, se.offset)
      throw inputError(`${displayName(source)}:${pos.line}:${pos.col}: ${se.message}`)
    }
    if (segments.length <= 1) {
      // The scanner accepted what JSON.parse refused: report JSON.parse's own words.
      const m = /at position (\d+)/.exec((e as Error).message)
      const pos = lineCol(text, m ? Number(m[1]) : 0)
      throw inputError(`${displayName(source)}:${pos.line}:${pos.col}: ${(e as Error).message.replace(/\s*in JSON at position.*$/, '')}`)
    }
    docs = segments.map(([a, b]) => JSON.parse(text.slice(a, b)))
  }
  const located: (Parsed | undefined)[] = []
  return {
    docs,
    // JSON is YAML: positions are computed only when an error needs them.
    locate(doc, path) {
      const seg = segments[doc]
      if (!seg) return undefined
      try {
        const sub = (located[doc] ??= parseYamlText(text.slice(seg[0], seg[1]), source))
        const p = sub.locate(0, path)
        if (!p) return undefined
        const base = lineCol(text, seg[0])
        return p.line === 1 ? {line: base.line, col: base.col + p.col - 1} : {line: base.line + p.line - 1, col: p.col}
      } catch {
        return undefined
      }
    },
  }
}

// The fast path for YAML: js-yaml builds plain objects straight from its event stream, about
// 3x faster than `yaml`'s document model, which we need only for line:column positions, so
// only when something is wrong (docs/design.md "Startup"). It must give exactly what `yaml`
// gives (its YAML 1.2 core schema, as used above), so it leaves to `yaml` every document that
// uses a feature where the two differ or that `yaml` limits: directives (%YAML 1.1 changes
// the schema), tags, aliases (maxAliasCount), keys that are null or collections, and a
// block scalar as a whole document (never a snapshot; `yaml` reads the indentation
// indicator of a top-level block scalar differently). js-yaml's
// core schema resolves plain scalars like `yaml`'s except floats that overflow: `yaml` gives
// Infinity for 1e400, so this float tag is `yaml`'s. test/unit/snapshot-yaml.test.ts
// compares the two on generated documents.
const YAML_FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
const YAML_FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/
const FAST_SCHEMA = CORE_SCHEMA.withTags(
  defineScalarTag('tag:yaml.org,2002:float', {
    implicit: true,
    implicitFirstChars: ['-', '+', '.', ...'0123456789'],
    resolve: (src) =>
      YAML_FLOAT_NAN.test(src)
        ? src.slice(-3).toLowerCase() === 'nan'
          ? Number.NaN
          : src[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY
        : YAML_FLOAT_EXP.test(src) || YAML_FLOAT.test(src)
          ? Number.parseFloat(src)
          : NOT_RESOLVED,
    identify: () => false,
  }),
  defineMappingTag('tag:yaml.org,2002:map', {
    create: mapTag.create,
    // `yaml` turns a null key into "" and a collection key into its YAML text.
    addPair: (map, key, value) => (key === null || typeof key === 'object' ? 'left to yaml' : mapTag.addPair(map, key, value)),
    has: mapTag.has,
    keys: mapTag.keys,
    get: mapTag.get,
    identify: mapTag.identify,
  }),
)

/** The documents, or undefined when `yaml` must read the text (see above) or finds it invalid. */
export function fastYamlDocs(text: string): unknown[] | undefined {
  try {
    const events = parseEvents(text, {})
    let root = false
    for (const e of events) {
      if (e.type === EVENT_ID.DOCUMENT ? e.directives.length > 0 : e.type !== EVENT_ID.POP && (e.type === EVENT_ID.ALIAS || e.tagStart !== -1 || (root && e.type === EVENT_ID.SCALAR && e.style >= SCALAR_STYLE.LITERAL_BLOCK))) {
        return undefined
      }
      root = e.type === EVENT_ID.DOCUMENT
    }
    return constructFromEvents(events, {source: text, schema: FAST_SCHEMA, maxAliases: 0})
  } catch {
    return undefined
  }
}

function parseText(text: string, source: string): Parsed {
  // Like kubectl's YAML-or-JSON decoder: text that starts with "{" or "[" is JSON.
  const first = /\S/.exec(text)?.[0]
  return first === '{' || first === '[' ? parseJsonText(text, source) : parseYamlText(text, source)
}

// ---- recognising and validating objects ----------------------------------------------------------

type Kind = 'Node' | 'Service' | 'EndpointSlice' | 'Event' | 'Deployment' | 'StatefulSet'

interface Located {
  kind: Kind
  obj: Obj
  doc: number
  path: Path
}

const LIST_ITEM_KIND: Record<string, Kind> = {
  NodeList: 'Node',
  ServiceList: 'Service',
  EndpointSliceList: 'EndpointSlice',
  EventList: 'Event',
  DeploymentList: 'Deployment',
  StatefulSetList: 'StatefulSet',
}

class Collector {
  readonly found: Located[] = []
  serverVersion: string | undefined
  nodesReadable: boolean | undefined
  /** A Snapshot document listed deployments/statefulSets (possibly empty): they were read. */
  workloadsListed = false
  constructor(
    private readonly parsed: Parsed,
    private readonly source: string,
  ) {}

  where(doc: number, path: Path): string {
    const pos = this.parsed.locate(doc, path)
    return `${displayName(this.source)}${pos ? `:${pos.line}:${pos.col}` : ''}`
  }

  fail(doc: number, path: Path, msg: string): never {
    throw inputError(`${this.where(doc, path)}: ${msg}`)
  }

  document(value: unknown, doc: number): void {
    if (value === null || value === undefined) return // empty document ("---" at the end)
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.object(v, doc, [i], true))
      return
    }
    if (!isObj(value)) {
      this.fail(doc, [], `expected a Kubernetes object or List, found ${typeof value === 'string' ? 'a string' : `a ${typeof value}`} (${EXPECTED})`)
    }
    this.object(value, doc, [], true)
  }

  object(value: unknown, doc: number, path: Path, allowList: boolean, impliedKind?: Kind): void {
    if (!isObj(value)) {
      this.fail(doc, path, `expected an object, found ${value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`}`)
    }
    const kind = typeof value.kind === 'string' ? value.kind : impliedKind
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : undefined
    if (kind === SNAPSHOT_KIND && (apiVersion ?? '').startsWith('kubectl-topology')) {
      if (apiVersion !== SNAPSHOT_API_VERSION) {
        this.fail(doc, path, `unsupported snapshot version "${apiVersion}" (this kubectl-topology reads ${SNAPSHOT_API_VERSION})`)
      }
      this.snapshot(value, doc, path)
      return
    }
    if (allowList && Array.isArray(value.items) && (kind === undefined || kind.endsWith('List'))) {
      const implied = kind ? LIST_ITEM_KIND[kind] : undefined
      value.items.forEach((item, i) => this.object(item, doc, [...path, 'items', i], true, implied))
      return
    }
    if (allowList && value.items !== undefined && kind?.endsWith('List')) {
      this.fail(doc, [...path, 'items'], `${kind}: "items" must be a list`)
    }
    switch (kind) {
      case 'Node':
      case 'Service':
        if (apiVersion === undefined || apiVersion === 'v1') this.found.push({kind, obj: value, doc, path})
        return
      case 'EndpointSlice':
        if (apiVersion === undefined || apiVersion.startsWith('discovery.k8s.io/')) this.found.push({kind, obj: value, doc, path})
        return
      case 'Event':
        if (apiVersion === undefined || apiVersion === 'v1' || apiVersion.startsWith('events.k8s.io/')) {
          this.found.push({kind, obj: value, doc, path})
        }
        return
      case 'Deployment':
      case 'StatefulSet':
        if (apiVersion === undefined || apiVersion.startsWith('apps/') || (kind === 'Deployment' && apiVersion.startsWith('extensions/'))) {
          this.found.push({kind, obj: value, doc, path})
        }
        return
      default:
        return // Pods, Deployments, Endpoints, …: not ours
    }
  }

  snapshot(value: Obj, doc: number, path: Path): void {
    if (value.serverVersion !== undefined && value.serverVersion !== null) {
      if (typeof value.serverVersion !== 'string') this.fail(doc, [...path, 'serverVersion'], 'serverVersion must be a string such as "1.36.3"')
      this.serverVersion = value.serverVersion
    }
    if (typeof value.nodesReadable === 'boolean') this.nodesReadable = value.nodesReadable
    const fields: [string, Kind][] = [
      ['nodes', 'Node'],
      ['services', 'Service'],
      ['endpointSlices', 'EndpointSlice'],
      ['events', 'Event'],
      ['deployments', 'Deployment'],
      ['statefulSets', 'StatefulSet'],
    ]
    for (const [field, kind] of fields) {
      const list = value[field]
      if (list === undefined || list === null) continue
      if (kind === 'Deployment' || kind === 'StatefulSet') this.workloadsListed = true
      if (!Array.isArray(list)) this.fail(doc, [...path, field], `Snapshot: "${field}" must be a list`)
      list.forEach((item, i) => {
        const p = [...path, field, i]
        if (!isObj(item)) this.fail(doc, p, `Snapshot ${field}[${i}]: expected an object`)
        if (typeof item.kind === 'string' && item.kind !== kind) {
          this.fail(doc, p, `Snapshot ${field}[${i}]: kind "${item.kind}" found where a ${kind} belongs`)
        }
        this.found.push({kind, obj: item, doc, path: p})
      })
    }
  }
}

function stringMap(c: Collector, at: Located, field: 'labels' | 'annotations', v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined
  if (!isObj(v)) c.fail(at.doc, [...at.path, 'metadata', field], `${at.kind}: metadata.${field} must be a mapping`)
  const out: Record<string, string> = {}
  for (const [k, x] of Object.entries(v)) {
    // Hand-written YAML says `tier: 1`; the API server would have stored "1".
    out[k] = typeof x === 'string' ? x : x === null ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x)
  }
  return out
}

function checkMeta(c: Collector, at: Located, namespaced: boolean): ObjectMeta {
  const m = at.obj.metadata
  if (!isObj(m)) c.fail(at.doc, at.path, `${at.kind}: missing required field "metadata"`)
  if (typeof m.name !== 'string' || m.name === '') {
    c.fail(at.doc, [...at.path, 'metadata'], `${at.kind}: missing required field "metadata.name"`)
  }
  const meta: ObjectMeta = {...(m as Obj), name: m.name} as ObjectMeta
  if (namespaced && (typeof m.namespace !== 'string' || m.namespace === '')) meta.namespace = 'default'
  const labels = stringMap(c, at, 'labels', m.labels)
  const annotations = stringMap(c, at, 'annotations', m.annotations)
  if (labels) meta.labels = labels
  if (annotations) meta.annotations = annotations
  return meta
}

const label = (at: Located, meta: ObjectMeta) =>
  `${at.kind} "${meta.namespace ? `${meta.namespace}/` : ''}${meta.name}"`

function toNode(c: Collector, at: Located): Node {
  const meta = checkMeta(c, at, false)
  const status = at.obj.status
  if (status !== undefined && status !== null && !isObj(status)) c.fail(at.doc, [...at.path, 'status'], `${label(at, meta)}: status must be a mapping`)
  if (isObj(status)) {
    for (const f of ['allocatable', 'capacity'] as const) {
      const v = status[f]
      if (v !== undefined && v !== null && !isObj(v)) c.fail(at.doc, [...at.path, 'status', f], `${label(at, meta)}: status.${f} must be a mapping`)
    }
    if (status.conditions !== undefined && status.conditions !== null && !Array.isArray(status.conditions)) {
      c.fail(at.doc, [...at.path, 'status', 'conditions'], `${label(at, meta)}: status.conditions must be a list`)
    }
  }
  return {...at.obj, apiVersion: 'v1', kind: 'Node', metadata: meta} as Node
}

function toService(c: Collector, at: Located): Service {
  const meta = checkMeta(c, at, true)
  const spec = at.obj.spec
  if (spec !== undefined && spec !== null && !isObj(spec)) c.fail(at.doc, [...at.path, 'spec'], `${label(at, meta)}: spec must be a mapping`)
  if (isObj(spec)) {
    if (spec.ports !== undefined && spec.ports !== null && !Array.isArray(spec.ports)) {
      c.fail(at.doc, [...at.path, 'spec', 'ports'], `${label(at, meta)}: spec.ports must be a list`)
    }
    if (spec.selector !== undefined && spec.selector !== null && !isObj(spec.selector)) {
      c.fail(at.doc, [...at.path, 'spec', 'selector'], `${label(at, meta)}: spec.selector must be a mapping`)
    }
  }
  return {...at.obj, apiVersion: 'v1', kind: 'Service', metadata: meta} as Service
}

function toEndpointSlice(c: Collector, at: Located): EndpointSlice {
  const meta = checkMeta(c, at, true)
  const o = at.obj
  const name = label(at, meta)
  if (o.addressType === undefined || o.addressType === null) c.fail(at.doc, at.path, `${name}: missing required field "addressType"`)
  if (o.addressType !== 'IPv4' && o.addressType !== 'IPv6' && o.addressType !== 'FQDN') {
    c.fail(at.doc, [...at.path, 'addressType'], `${name}: invalid addressType ${JSON.stringify(o.addressType)} (expected IPv4, IPv6 or FQDN)`)
  }
  let endpoints: Endpoint[] | null | undefined = o.endpoints as undefined | null
  if (o.endpoints !== undefined && o.endpoints !== null) {
    if (!Array.isArray(o.endpoints)) c.fail(at.doc, [...at.path, 'endpoints'], `${name}: endpoints must be a list`)
    endpoints = o.endpoints.map((e: unknown, i: number) => {
      const p = [...at.path, 'endpoints', i]
      if (!isObj(e)) c.fail(at.doc, p, `${name}: endpoints[${i}] must be a mapping`)
      if (e.addresses === undefined || e.addresses === null) c.fail(at.doc, p, `${name}: endpoints[${i}]: missing required field "addresses"`)
      if (!Array.isArray(e.addresses) || e.addresses.some((a) => typeof a !== 'string')) {
        c.fail(at.doc, [...p, 'addresses'], `${name}: endpoints[${i}].addresses must be a list of strings`)
      }
      for (const f of ['conditions', 'hints', 'targetRef'] as const) {
        if (e[f] !== undefined && e[f] !== null && !isObj(e[f])) c.fail(at.doc, [...p, f], `${name}: endpoints[${i}].${f} must be a mapping`)
      }
      // discovery.k8s.io/v1beta1 kept zone and node in `topology`.
      let ep: Obj = e
      const topology = isObj(e.topology) ? e.topology : undefined
      if (topology && ep.zone === undefined && typeof topology['topology.kubernetes.io/zone'] === 'string') {
        ep = {...ep, zone: topology['topology.kubernetes.io/zone']}
      }
      if (topology && ep.nodeName === undefined && typeof topology[LABEL_HOSTNAME] === 'string') {
        ep = {...ep, nodeName: topology[LABEL_HOSTNAME]}
      }
      return ep as unknown as Endpoint
    })
  }
  if (o.ports !== undefined && o.ports !== null && !Array.isArray(o.ports)) c.fail(at.doc, [...at.path, 'ports'], `${name}: ports must be a list`)
  const out = {...o, apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta} as EndpointSlice
  if (endpoints !== undefined) out.endpoints = endpoints
  return out
}

function toEvent(c: Collector, at: Located): EventObject {
  const meta = checkMeta(c, at, true)
  const o = at.obj
  if (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('events.k8s.io/')) {
    // events.k8s.io/v1 spells the core fields differently.
    const ev: EventObject = {metadata: meta}
    if (isObj(o.regarding)) ev.involvedObject = o.regarding as EventObject['involvedObject']
    if (typeof o.reason === 'string') ev.reason = o.reason
    if (typeof o.note === 'string') ev.message = o.note
    if (typeof o.type === 'string') ev.type = o.type
    const count = isObj(o.series) ? o.series.count : o.deprecatedCount
    if (typeof count === 'number') ev.count = count
    const last = isObj(o.series) ? o.series.lastObservedTime : o.deprecatedLastTimestamp
    if (typeof last === 'string') ev.lastTimestamp = last
    if (typeof o.eventTime === 'string') ev.eventTime = o.eventTime
    if (typeof o.deprecatedFirstTimestamp === 'string') ev.firstTimestamp = o.deprecatedFirstTimestamp
    return {apiVersion: 'v1', kind: 'Event', ...ev} as EventObject
  }
  if (o.involvedObject !== undefined && o.involvedObject !== null && !isObj(o.involvedObject)) {
    c.fail(at.doc, [...at.path, 'involvedObject'], `${label(at, meta)}: involvedObject must be a mapping`)
  }
  return {...o, apiVersion: 'v1', kind: 'Event', metadata: meta} as EventObject
}

/** A Deployment or StatefulSet: checks the shape of the fields simulate reads. */
function toWorkload(c: Collector, at: Located): Deployment | StatefulSet {
  const meta = checkMeta(c, at, true)
  const name = label(at, meta)
  const spec = at.obj.spec
  function fail(path: Path, msg: string): never {
    return c.fail(at.doc, [...at.path, 'spec', ...path], `${name}: spec${path.map((p) => `.${p}`).join('')} ${msg}`)
  }
  if (spec !== undefined && spec !== null) {
    if (!isObj(spec)) c.fail(at.doc, [...at.path, 'spec'], `${name}: spec must be a mapping`)
    if (spec.replicas !== undefined && spec.replicas !== null && !(Number.isInteger(spec.replicas) && (spec.replicas as number) >= 0)) fail(['replicas'], 'must be a non-negative integer')
    const tpl = spec.template
    if (tpl !== undefined && tpl !== null) {
      if (!isObj(tpl)) fail(['template'], 'must be a mapping')
      if (tpl.metadata !== undefined && tpl.metadata !== null && !isObj(tpl.metadata)) fail(['template', 'metadata'], 'must be a mapping')
      const labels = isObj(tpl.metadata) ? tpl.metadata.labels : undefined
      if (labels !== undefined && labels !== null && !isObj(labels)) fail(['template', 'metadata', 'labels'], 'must be a mapping')
    }
    const strategyField = at.kind === 'Deployment' ? 'strategy' : 'updateStrategy'
    const strategy = spec[strategyField]
    if (strategy !== undefined && strategy !== null) {
      if (!isObj(strategy)) fail([strategyField], 'must be a mapping')
      if (strategy.type !== undefined && strategy.type !== null && typeof strategy.type !== 'string') fail([strategyField, 'type'], 'must be a string')
      const ru = strategy.rollingUpdate
      if (ru !== undefined && ru !== null) {
        if (!isObj(ru)) fail([strategyField, 'rollingUpdate'], 'must be a mapping')
        for (const f of ['maxSurge', 'maxUnavailable']) {
          const v = ru[f]
          if (v !== undefined && v !== null && typeof v !== 'number' && typeof v !== 'string') fail([strategyField, 'rollingUpdate', f], 'must be an integer or a percentage')
        }
        if (ru.partition !== undefined && ru.partition !== null && !Number.isInteger(ru.partition)) fail([strategyField, 'rollingUpdate', 'partition'], 'must be an integer')
      }
    }
  }
  return {...at.obj, kind: at.kind, metadata: meta} as Deployment | StatefulSet
}

/** Parses snapshot text. `source` is the file name (or "-" for stdin), used in messages. */
export function parseSnapshot(text: string, source: string): ClusterState {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body.trim() === '') throw inputError(`${displayName(source)}: the snapshot is empty (${EXPECTED})`)
  const first = /\S/.exec(body)?.[0]
  const fast = first === '{' || first === '[' ? undefined : fastYamlDocs(body)
  if (fast) {
    try {
      return collect({docs: fast, locate: () => undefined}, source)
    } catch (e) {
      if (!(e instanceof CliError)) throw e
      // Invalid content: read again with `yaml` to say where (file:line:col).
    }
  }
  return collect(parseText(body, source), source)
}

function collect(parsed: Parsed, source: string): ClusterState {
  const c = new Collector(parsed, source)
  parsed.docs.forEach((d, i) => c.document(d, i))

  // The same object twice (two files concatenated, a re-export): the later one wins.
  const byKey = new Map<string, unknown>()
  const add = (kind: Kind, meta: ObjectMeta, v: unknown) => {
    const key = `${kind}\u0000${meta.namespace ?? ''}\u0000${meta.name}`
    byKey.delete(key)
    byKey.set(key, v)
  }
  for (const at of c.found) {
    switch (at.kind) {
      case 'Node': {
        const n = toNode(c, at)
        add('Node', n.metadata, n)
        break
      }
      case 'Service': {
        const s = toService(c, at)
        add('Service', s.metadata, s)
        break
      }
      case 'EndpointSlice': {
        const s = toEndpointSlice(c, at)
        add('EndpointSlice', s.metadata, s)
        break
      }
      case 'Event': {
        const e = toEvent(c, at)
        add('Event', e.metadata, e)
        break
      }
      case 'Deployment':
      case 'StatefulSet': {
        const w = toWorkload(c, at)
        add(at.kind, w.metadata, w)
        break
      }
    }
  }
  validateSnapshot({found: c.found, serverVersion: c.serverVersion, docs: parsed.docs}, (doc, path, msg) => c.fail(doc, path, msg))
  const state: ClusterState = {nodes: [], services: [], endpointSlices: []}
  const events: EventObject[] = []
  const deployments: Deployment[] = []
  const statefulSets: StatefulSet[] = []
  for (const [key, v] of byKey) {
    const kind = key.slice(0, key.indexOf('\u0000'))
    if (kind === 'Node') state.nodes.push(v as Node)
    else if (kind === 'Service') state.services.push(v as Service)
    else if (kind === 'EndpointSlice') state.endpointSlices.push(v as EndpointSlice)
    else if (kind === 'Deployment') deployments.push(v as Deployment)
    else if (kind === 'StatefulSet') statefulSets.push(v as StatefulSet)
    else events.push(v as EventObject)
  }
  if (state.services.length === 0 && state.endpointSlices.length === 0) {
    throw inputError(`${displayName(source)}: no Services or EndpointSlices found (${EXPECTED})`)
  }
  if (events.length > 0) state.events = events
  // Present when the input lists them (our Snapshot, even empty) or holds any (kubectl get).
  if (c.workloadsListed || deployments.length > 0 || statefulSets.length > 0) {
    state.deployments = deployments
    state.statefulSets = statefulSets
  }
  if (c.serverVersion !== undefined) state.serverVersion = c.serverVersion
  state.nodesReadable = c.nodesReadable ?? state.nodes.length > 0
  return state
}

/** Reads and parses a snapshot file, or stdin for "-". */
export async function readSnapshotFile(path: string): Promise<ClusterState> {
  let text: string
  try {
    if (path === '-') {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
      text = Buffer.concat(chunks).toString('utf8')
    } else {
      text = await fs.readFile(path, 'utf8')
    }
  } catch (e) {
    const why = describeFileError(e)
    throw new CliError(`cannot read snapshot file "${path}": ${why}`, ExitCode.INPUT, {cause: e})
  }
  return parseSnapshot(text, path)
}

// ---- writing ---------------------------------------------------------------------------------

const TOPOLOGY_ANNOTATIONS = new Set([ANNOTATION_TOPOLOGY_MODE, ANNOTATION_TOPOLOGY_AWARE_HINTS])
const isTopologyAnnotation = (k: string) => TOPOLOGY_ANNOTATIONS.has(k) || k.startsWith('service.kubernetes.io/topology')

/** Node labels that survive --redact (the hostname one with its value pseudonymised). */
const KEPT_NODE_LABEL = (k: string) =>
  k.startsWith('topology.kubernetes.io/') ||
  k.startsWith('failure-domain.beta.kubernetes.io/') ||
  k.startsWith('node-role.kubernetes.io/') ||
  k === LABEL_HOSTNAME ||
  k === 'kubernetes.io/os' ||
  k === 'kubernetes.io/arch' ||
  k === 'node.kubernetes.io/instance-type' ||
  k === 'node.kubernetes.io/exclude-from-external-load-balancers'

const IPV4 = /\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b/g
// Loose IPv6: at least two colons and hex groups (good enough to catch addresses in free text).
const IPV6 = /(?<![\w:.])(?:[0-9a-fA-F]{1,4}:){2,7}(?::|[0-9a-fA-F]{1,4})(?::[0-9a-fA-F]{1,4})*(?![\w:])|(?<![\w:])::(?:[0-9a-fA-F]{1,4}:){0,6}[0-9a-fA-F]{1,4}(?![\w:])/g

function pseudoIPv4(n: number): string {
  // 198.18.0.0/15 (benchmarking), then 240.0.0.0/4 (reserved): never a real pod IP.
  const v = n < 131_070 ? 0xc6120000 + n + 1 : 0xf0000000 + n
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.')
}
function pseudoIPv6(n: number): string {
  const v = n + 1
  const hi = Math.floor(v / 0x10000)
  return `2001:db8::${hi ? `${hi.toString(16)}:` : ''}${(v % 0x10000).toString(16)}` // documentation prefix
}

class Pseudonyms {
  private readonly ipv4 = new Set<string>()
  private readonly ipv6 = new Set<string>()
  private readonly fqdn = new Set<string>()
  private readonly nodes = new Set<string>()
  private readonly pods = new Set<string>()
  private readonly hosts = new Set<string>()
  private map = new Map<string, string>()

  ip(v: unknown): void {
    if (typeof v !== 'string' || v === '' || v === 'None') return
    if (v.includes(':')) this.ipv6.add(v)
    else if (/^[\d.]+$/.test(v)) this.ipv4.add(v)
    else this.fqdn.add(v)
  }
  node(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.nodes.add(v)
  }
  pod(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.pods.add(v)
  }
  host(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.hosts.add(v)
  }
  text(v: unknown): void {
    if (typeof v !== 'string') return
    for (const m of v.matchAll(IPV4)) this.ipv4.add(m[0])
    for (const m of v.matchAll(IPV6)) this.ipv6.add(m[0])
  }

  /** Assigns pseudonyms in sorted order, so the same input always gives the same output. */
  freeze(): void {
    const sorted = (s: Set<string>) => [...s].sort()
    const originals = new Set([...this.ipv4, ...this.ipv6, ...this.fqdn, ...this.nodes, ...this.pods, ...this.hosts])
    const assign = (values: Set<string>, make: (n: number) => string, prefix: string) => {
      let n = 0
      for (const v of sorted(values)) {
        const key = `${prefix}\u0000${v}`
        if (this.map.has(key)) continue
        let p = make(n++)
        while (originals.has(p)) p = make(n++)
        this.map.set(key, p)
      }
    }
    assign(this.ipv4, pseudoIPv4, 'ip')
    assign(this.ipv6, pseudoIPv6, 'ip')
    assign(this.fqdn, (n) => `endpoint-${n + 1}.redacted.invalid`, 'ip')
    assign(this.nodes, (n) => `node-${n + 1}`, 'node')
    assign(this.pods, (n) => `pod-${n + 1}`, 'pod')
    assign(this.hosts, (n) => `lb-${n + 1}.redacted.invalid`, 'host')
  }

  get(kind: 'ip' | 'node' | 'pod' | 'host', v: string): string {
    return this.map.get(`${kind}\u0000${v}`) ?? (kind === 'node' ? 'node-redacted' : kind === 'pod' ? 'pod-redacted' : 'redacted')
  }

  /** Replaces every known original value (and any IP) in free text, in one pass. */
  scrubText(s: string): string {
    const byOriginal = new Map<string, string>()
    for (const [key, p] of this.map) {
      const orig = key.slice(key.indexOf('\u0000') + 1)
      if (orig.length >= 3 && !byOriginal.has(orig)) byOriginal.set(orig, p)
    }
    const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const alternatives = [...byOriginal.keys()].sort((a, b) => b.length - a.length).map(esc)
    const re = new RegExp([...alternatives, IPV4.source, IPV6.source].join('|'), 'g')
    return s.replace(re, (m) => byOriginal.get(m) ?? this.get('ip', m))
  }
}

const EVENT_FIELDS = ['reason', 'message', 'type', 'count', 'lastTimestamp', 'eventTime', 'firstTimestamp'] as const

function redactMeta(meta: ObjectMeta, name: string): ObjectMeta {
  const out: ObjectMeta = {name}
  if (meta.namespace !== undefined) out.namespace = meta.namespace
  if (meta.generation !== undefined) out.generation = meta.generation
  if (meta.creationTimestamp !== undefined) out.creationTimestamp = meta.creationTimestamp
  if (meta.deletionTimestamp !== undefined) out.deletionTimestamp = meta.deletionTimestamp
  if (meta.labels) out.labels = {...meta.labels}
  const ann = Object.entries(meta.annotations ?? {}).filter(([k]) => isTopologyAnnotation(k))
  if (ann.length > 0) out.annotations = Object.fromEntries(ann)
  return out
}

function withoutManagedFields<T extends {metadata: ObjectMeta}>(o: T): T {
  const meta = o.metadata as ObjectMeta & {managedFields?: unknown}
  if (meta.managedFields === undefined) return o
  const {managedFields: _drop, ...rest} = meta
  return {...o, metadata: rest}
}

/**
 * A Node as the snapshot keeps it: what kubectl-topology reads (metadata, spec.unschedulable and
 * taints, allocatable, capacity, and each condition's type, status and reason). A Node's
 * nodeInfo, images, addresses, daemonEndpoints, volumes and condition heartbeats are most of
 * its bytes, change all the time, and only slow down reading the file (docs/design.md "Startup").
 */
function nodeForSnapshot(n: Node): Node {
  const {spec: _spec, status: _status, ...rest} = withoutManagedFields(n)
  const out: Node = rest
  const spec = n.spec as (Obj & {unschedulable?: boolean; taints?: unknown}) | undefined
  if (spec && (spec.unschedulable !== undefined || spec.taints !== undefined)) {
    out.spec = {} as Node['spec'] & Obj
    if (spec.unschedulable !== undefined) out.spec!.unschedulable = spec.unschedulable
    if (spec.taints !== undefined) (out.spec as Obj).taints = spec.taints
  }
  if (n.status) {
    const st: NonNullable<Node['status']> = {}
    if (n.status.allocatable) st.allocatable = n.status.allocatable
    if (n.status.capacity) st.capacity = n.status.capacity
    if (n.status.conditions) st.conditions = n.status.conditions.map((c) => ({type: c.type, status: c.status, ...(c.reason ? {reason: c.reason} : {})}))
    out.status = st
  }
  return out
}

/** An EndpointSlice as the snapshot keeps it: endpoints refer to their Pods by kind, namespace and name. */
function sliceForSnapshot(sl: EndpointSlice): EndpointSlice {
  const out = withoutManagedFields(sl)
  if (!out.endpoints?.some((e) => e.targetRef?.uid !== undefined || (e.targetRef as Obj | undefined)?.resourceVersion !== undefined)) return out
  return {
    ...out,
    endpoints: out.endpoints.map((e) => {
      if (e.targetRef === undefined) return e
      const {uid: _uid, resourceVersion: _rv, ...ref} = e.targetRef as NonNullable<Endpoint['targetRef']> & {resourceVersion?: string}
      return {...e, targetRef: ref}
    }),
  }
}

/**
 * A Deployment or StatefulSet as the snapshot keeps it: name, namespace, labels, replicas, the
 * selector, the update strategy and the pod template's labels. Never the pod template's spec
 * (its environment can hold secrets) nor annotations (last-applied-configuration holds it too).
 */
function workloadForSnapshot(w: Deployment | StatefulSet): Deployment | StatefulSet {
  const metadata: ObjectMeta = {name: w.metadata.name}
  if (w.metadata.namespace !== undefined) metadata.namespace = w.metadata.namespace
  if (w.metadata.labels) metadata.labels = {...w.metadata.labels}
  const src = (w.spec ?? {}) as Obj
  const fields = w.kind === 'StatefulSet' ? ['replicas', 'selector', 'serviceName', 'podManagementPolicy', 'updateStrategy'] : ['replicas', 'selector', 'strategy', 'paused']
  const spec: Obj = {}
  for (const f of fields) if (src[f] !== undefined) spec[f] = src[f]
  const labels = w.spec?.template?.metadata?.labels
  if (labels) spec.template = {metadata: {labels: {...labels}}}
  return {apiVersion: 'apps/v1', kind: w.kind, metadata, spec} as Deployment | StatefulSet
}

function redactState(state: ClusterState): Omit<Snapshot, 'apiVersion' | 'kind'> {
  const p = new Pseudonyms()
  // Pass 1: collect every value to replace.
  for (const n of state.nodes) {
    p.node(n.metadata.name)
    p.node(n.metadata.labels?.[LABEL_HOSTNAME])
  }
  for (const s of state.services) {
    const spec = (s.spec ?? {}) as Obj
    p.ip(spec.clusterIP)
    for (const ip of (spec.clusterIPs as unknown[] | undefined) ?? []) p.ip(ip)
    for (const ip of (spec.externalIPs as unknown[] | undefined) ?? []) p.ip(ip)
    p.ip(spec.loadBalancerIP)
    p.host(spec.externalName)
    for (const ing of s.status?.loadBalancer?.ingress ?? []) {
      p.ip(ing.ip)
      p.host(ing.hostname)
    }
  }
  for (const sl of state.endpointSlices) {
    for (const e of sl.endpoints ?? []) {
      for (const a of e.addresses ?? []) p.ip(a)
      p.node(e.nodeName)
      for (const fn of e.hints?.forNodes ?? []) p.node(fn.name)
      if (e.targetRef?.kind === 'Node') p.node(e.targetRef.name)
      else p.pod(e.targetRef?.name)
      p.pod(e.hostname)
    }
  }
  for (const ev of state.events ?? []) p.text(ev.message)
  p.freeze()

  // Pass 2: rebuild with only what explain needs.
  const nodes: Node[] = state.nodes.map((n) => {
    const labels = Object.fromEntries(
      Object.entries(n.metadata.labels ?? {})
        .filter(([k]) => KEPT_NODE_LABEL(k))
        .map(([k, v]) => [k, k === LABEL_HOSTNAME ? p.get('node', v) : v]),
    )
    const meta = redactMeta({...n.metadata, labels, annotations: {}}, p.get('node', n.metadata.name))
    delete meta.namespace
    const out: Node = {apiVersion: 'v1', kind: 'Node', metadata: meta}
    const spec = n.spec as (Obj & {unschedulable?: boolean; taints?: unknown}) | undefined
    if (spec && (spec.unschedulable !== undefined || spec.taints !== undefined)) {
      out.spec = {} as Node['spec'] & Obj
      if (spec.unschedulable !== undefined) out.spec!.unschedulable = spec.unschedulable
      if (spec.taints !== undefined) (out.spec as Obj).taints = spec.taints
    }
    if (n.status) {
      const st: NonNullable<Node['status']> = {}
      if (n.status.allocatable) st.allocatable = {...n.status.allocatable}
      if (n.status.capacity) st.capacity = {...n.status.capacity}
      if (n.status.conditions) {
        st.conditions = n.status.conditions.map((c) => ({type: c.type, status: c.status, ...(c.reason ? {reason: c.reason} : {})}))
      }
      out.status = st
    }
    return out
  })

  const services: Service[] = state.services.map((s) => {
    const out: Service = {apiVersion: 'v1', kind: 'Service', metadata: redactMeta(s.metadata, s.metadata.name)}
    if (s.spec) {
      const spec = {...s.spec} as Obj
      const ip = (v: unknown) => (typeof v === 'string' && v !== 'None' && v !== '' ? p.get('ip', v) : v)
      if (spec.clusterIP !== undefined) spec.clusterIP = ip(spec.clusterIP)
      if (Array.isArray(spec.clusterIPs)) spec.clusterIPs = spec.clusterIPs.map(ip)
      if (Array.isArray(spec.externalIPs)) spec.externalIPs = spec.externalIPs.map(ip)
      if (spec.loadBalancerIP !== undefined) spec.loadBalancerIP = ip(spec.loadBalancerIP)
      if (typeof spec.externalName === 'string') spec.externalName = p.get('host', spec.externalName)
      delete spec.loadBalancerSourceRanges
      out.spec = spec as Service['spec']
    }
    const ingress = s.status?.loadBalancer?.ingress
    if (ingress) {
      out.status = {
        loadBalancer: {
          ingress: ingress.map((i) => ({
            ...(i.ip ? {ip: p.get('ip', i.ip)} : {}),
            ...(i.hostname ? {hostname: p.get('host', i.hostname)} : {}),
          })),
        },
      }
    }
    return out
  })

  const endpointSlices: EndpointSlice[] = state.endpointSlices.map((sl) => {
    const out: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: redactMeta(sl.metadata, sl.metadata.name),
      addressType: sl.addressType,
    }
    if (sl.endpoints !== undefined) {
      out.endpoints =
        sl.endpoints === null
          ? null
          : sl.endpoints.map((e) => {
              const r: Endpoint = {addresses: (e.addresses ?? []).map((a) => p.get('ip', a))}
              if (e.conditions !== undefined) r.conditions = {...e.conditions}
              if (e.hostname !== undefined) r.hostname = p.get('pod', e.hostname)
              if (e.nodeName !== undefined) r.nodeName = e.nodeName === null ? null : p.get('node', e.nodeName)
              if (e.zone !== undefined) r.zone = e.zone
              if (e.hints !== undefined) {
                r.hints =
                  e.hints === null
                    ? null
                    : {
                        ...(e.hints.forZones !== undefined ? {forZones: e.hints.forZones} : {}),
                        ...(e.hints.forNodes !== undefined
                          ? {forNodes: e.hints.forNodes === null ? null : e.hints.forNodes.map((f) => ({name: p.get('node', f.name)}))}
                          : {}),
                      }
              }
              if (e.targetRef !== undefined) {
                const t = e.targetRef
                r.targetRef = {
                  ...(t.kind !== undefined ? {kind: t.kind} : {}),
                  ...(t.name !== undefined ? {name: t.kind === 'Node' ? p.get('node', t.name) : p.get('pod', t.name)} : {}),
                  ...(t.namespace !== undefined ? {namespace: t.namespace} : {}),
                }
              }
              return r
            })
    }
    if (sl.ports !== undefined) out.ports = sl.ports
    return out
  })

  const out: Omit<Snapshot, 'apiVersion' | 'kind'> = {nodes, services, endpointSlices}
  if (state.deployments) out.deployments = state.deployments.map((w) => workloadForSnapshot(w) as Deployment)
  if (state.statefulSets) out.statefulSets = state.statefulSets.map((w) => workloadForSnapshot(w) as StatefulSet)
  if (state.events) {
    out.events = state.events.map((ev) => {
      const r: EventObject = {metadata: redactMeta(ev.metadata, ev.metadata.name)}
      if (ev.involvedObject) {
        const io = ev.involvedObject
        r.involvedObject = {
          ...(io.kind !== undefined ? {kind: io.kind} : {}),
          ...(io.name !== undefined ? {name: io.name} : {}),
          ...(io.namespace !== undefined ? {namespace: io.namespace} : {}),
        }
      }
      for (const f of EVENT_FIELDS) {
        const v = ev[f]
        if (v !== undefined) (r as unknown as Obj)[f] = f === 'message' && typeof v === 'string' ? p.scrubText(v) : v
      }
      return {apiVersion: 'v1', kind: 'Event', ...r} as EventObject
    })
  }
  return out
}

/** Our Snapshot document for `kubectl topology snapshot`: what kubectl-topology reads; with redact, also no addresses or node/pod names. */
export function serializeSnapshot(state: ClusterState, opts: {redact?: boolean} = {}): Snapshot {
  const body = opts.redact
    ? redactState(state)
    : {
        nodes: state.nodes.map(nodeForSnapshot),
        services: state.services.map(withoutManagedFields),
        endpointSlices: state.endpointSlices.map(sliceForSnapshot),
        ...(state.deployments ? {deployments: state.deployments.map((w) => workloadForSnapshot(w) as Deployment)} : {}),
        ...(state.statefulSets ? {statefulSets: state.statefulSets.map((w) => workloadForSnapshot(w) as StatefulSet)} : {}),
        ...(state.events ? {events: state.events.map(withoutManagedFields)} : {}),
      }
  const snap: Snapshot = {apiVersion: SNAPSHOT_API_VERSION, kind: SNAPSHOT_KIND, nodes: [], services: [], endpointSlices: []}
  if (state.serverVersion !== undefined) snap.serverVersion = state.serverVersion
  if (state.nodesReadable === false) snap.nodesReadable = false
  snap.nodes = body.nodes
  snap.services = body.services
  snap.endpointSlices = body.endpointSlices
  if (body.deployments) snap.deployments = body.deployments
  if (body.statefulSets) snap.statefulSets = body.statefulSets
  if (body.events) snap.events = body.events
  return snap
}

/** The Snapshot as YAML, as `kubectl topology snapshot` prints it. */
export function snapshotYaml(snap: Snapshot): string {
  return stringify(snap, {lineWidth: 0})
}

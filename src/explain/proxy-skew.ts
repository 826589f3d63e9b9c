// kube-proxy version skew per node, for explain (issue 22): each node's kube-proxy applies its
// own minor's rules (src/dataplane/proxy-nodes.ts proxyRulesFor), in --per-node, the per-zone
// verdict and the in-zone estimate; and, once per Service, which nodes' older kube-proxy
// changes what the Service gets. Pure.

import {proxyMinor, proxyRulesFor, type ProxyRules} from '../dataplane/proxy-nodes.js'
import type {DataPlane} from '../dataplane/types.js'
import {LABEL_ZONE, type Node, type Service} from '../upstream/api/types.js'
import {legacyHintsAnnotation} from '../upstream/kube-proxy/serviceport.js'
import type {CategorizeOptions} from '../upstream/kube-proxy/topology.js'

export interface ProxySkew {
  /** Each node's rules, by node name (the base rules for a node whose version is unknown). */
  rulesOf(node: string): ProxyRules
  /** Each node's kube-proxy version ("1.33.13"), by name; absent when unknown. */
  versions: ReadonlyMap<string, string>
  /** The distinct rules the nodes run: the base's first. */
  classes: ProxyRules[]
  /** Some node's rules are not the cluster-wide ones: each node must be categorised under its own. */
  skewed: boolean
  /** More than one rule set among the nodes (the notices are about these differences). */
  mixed: boolean
}

/**
 * The per-node rules when the data plane is kube-proxy and its Pods were read; null otherwise
 * (every node then runs `base`, the cluster-wide rules).
 */
function proxySkew(plane: DataPlane | undefined, nodes: readonly Node[], base: ProxyRules): ProxySkew | null {
  if ((plane?.name !== 'kube-proxy' && plane?.name !== 'unknown') || plane.proxyNodes === undefined) return null
  const settings = plane.settings ?? {}
  const versions = new Map<string, string>()
  const rules = new Map<string, ProxyRules>()
  const classes: ProxyRules[] = [base]
  const fromPods = new Map(plane.proxyNodes.map((p) => [p.node, p.version]))
  for (const n of nodes) {
    const name = n.metadata.name
    // A node without a kube-proxy Pod (or whose image has no version tag): the DaemonSet's version, the base rules.
    const v = fromPods.get(name) ?? null
    const known = v ?? plane.proxyVersion
    if (known !== undefined) versions.set(name, known)
    const r = v === null ? null : proxyRulesFor(v, settings)
    if (r === null) continue
    const same = classes.find((c) => sameRules(c, r))
    rules.set(name, same ?? r)
    if (!same) classes.push(r)
  }
  const used = new Set(nodes.map((n) => rules.get(n.metadata.name) ?? base))
  return {rulesOf: (node) => rules.get(node) ?? base, versions, classes: classes.filter((c) => used.has(c)), skewed: used.size > 1 || !used.has(base), mixed: used.size > 1}
}

/**
 * The node's kube-proxy is older than 1.36, whose endpoint cache merges one address found in
 * several slices differently: a copy on the node itself wins (v1.33.13 endpointslicecache.go
 * addEndpoints `!exists || isLocal`; 1.36 prefers a non-terminating copy, kubernetes/kubernetes#135593).
 */
export function mergesLocalCopy(skew: ProxySkew | null, node: string): boolean {
  const m = /^1\.(\d+)/.exec(skew?.versions.get(node) ?? '')
  return m !== null && Number(m[1]) < 36
}

/**
 * proxySkew once per data plane, Nodes array and cluster-wide rule set, across explain() calls
 * (a memo by identity: the engine never mutates its input). It was once per call: a pass over
 * every Node for each of the advisor's four or five explain() calls per Service, when the
 * kube-proxy Pods were read (2,000 Services on 1,000 nodes: about half of `explain -A`'s CPU).
 * Without per-node versions there is no skew: null, with no memo.
 */
const SKEWS = new WeakMap<DataPlane, WeakMap<readonly Node[], (ProxySkew | null | undefined)[]>>()
const NO_SKEW = (): null => null
export function proxySkewMemo(plane: DataPlane | undefined, nodes: readonly Node[]): (base: ProxyRules) => ProxySkew | null {
  if (plane === undefined || (plane.name !== 'kube-proxy' && plane.name !== 'unknown') || plane.proxyNodes === undefined) return NO_SKEW
  let byNodes = SKEWS.get(plane)
  if (byNodes === undefined) SKEWS.set(plane, (byNodes = new WeakMap()))
  let slots = byNodes.get(nodes)
  if (slots === undefined) byNodes.set(nodes, (slots = []))
  const memo = slots
  return (base) => {
    // The rules' two flags (their minor is unset here) pick the slot.
    const k = (base.preferSameGate ? 1 : 0) + (base.requireAnnotation ? 2 : 0)
    let v = memo[k]
    if (v === undefined) memo[k] = v = proxySkew(plane, nodes, base)
    return v
  }
}

/** Two rule sets categorise alike. */
export const sameRules = (a: ProxyRules, b: ProxyRules) => a.preferSameGate === b.preferSameGate && a.requireAnnotation === b.requireAnnotation

/** categorizeEndpoints' options for one rule set. */
export function categorizeOptions(r: ProxyRules, service: Service): CategorizeOptions {
  return {preferSameGate: r.preferSameGate, ...(r.requireAnnotation ? {requireAnnotation: {annotations: service.metadata.annotations}} : {})}
}

/**
 * The rules a zone's verdict row follows: those most of the zone's nodes run (ties: the
 * first in `classes`, the base's), and each rule set's share of the zone's traffic, by the
 * nodes' allocatable CPU (by count when none has CPU).
 */
export function zoneRules(skew: ProxySkew, zoneNodes: readonly Node[], cpuOf: (node: string) => number): {rules: ProxyRules; weights: Map<ProxyRules, number>} {
  const count = new Map<ProxyRules, number>()
  const cpu = new Map<ProxyRules, number>()
  for (const n of zoneNodes) {
    const r = skew.rulesOf(n.metadata.name)
    count.set(r, (count.get(r) ?? 0) + 1)
    cpu.set(r, (cpu.get(r) ?? 0) + Math.max(0, cpuOf(n.metadata.name)))
  }
  let rules = skew.classes[0]!
  for (const c of skew.classes) if ((count.get(c) ?? 0) > (count.get(rules) ?? 0)) rules = c
  const by = [...cpu.values()].some((v) => v > 0) ? cpu : count
  const total = [...by.values()].reduce((a, b) => a + b, 0)
  const weights = new Map<ProxyRules, number>()
  if (total > 0) {
    for (const [c, v] of by) if (v > 0) weights.set(c, v / total)
  } else weights.set(rules, 1)
  return {rules, weights}
}

export interface SkewNotice {
  /** The kube-proxy minor of these nodes. */
  proxyVersion: string
  /** Their zone label; null without one. */
  zone: string | null
  nodes: string[]
  /** What it changes for this Service: node hints ignored, hints ignored (no annotation), hints ignored on nodes without a zone. */
  effect: 'ignores-node-hints' | 'ignores-hints-without-annotation' | 'ignores-hints-without-zone'
  message: string
}

/**
 * One notice per (minor, zone) of nodes whose kube-proxy treats this Service differently from
 * the newest rules among the nodes, in node-name order; empty when nothing differs.
 * `nodeHints`: some endpoint carries node hints (or the Service asks for PreferSameNode);
 * `hinted`: some endpoint carries hints, or the Service asks for them; `emptyZoneHint`: some
 * endpoint is hinted for zone "" (which a node without a zone label uses from 1.31 on, and 1.30
 * never: without such a hint every minor ignores zone hints on that node, nothing differs).
 */
export function skewNotices(skew: ProxySkew, nodes: readonly Node[], service: Service, facts: {hinted: boolean; nodeHints: boolean; emptyZoneHint: boolean}): SkewNotice[] {
  if (!skew.mixed || !facts.hinted) return []
  const annotated = !['', 'disabled', 'Disabled'].includes(legacyHintsAnnotation(service.metadata.annotations))
  // The notices depend on the Service only through these three facts: made once per skew, Nodes
  // array and facts (a sort and a pass over every Node per Service and mode before), each Service
  // getting its own notice objects (their node lists shared, frozen).
  const key = (annotated ? 1 : 0) + (facts.nodeHints ? 2 : 0) + (facts.emptyZoneHint ? 4 : 0)
  let byNodes = NOTICES.get(skew)
  if (byNodes === undefined) NOTICES.set(skew, (byNodes = new WeakMap()))
  let slots = byNodes.get(nodes)
  if (slots === undefined) byNodes.set(nodes, (slots = []))
  let made = slots[key]
  if (made === undefined) {
    made = noticesOf(skew, nodes, annotated, facts)
    for (const g of made) Object.freeze(g.nodes)
    slots[key] = made
  }
  return made.map((g) => ({...g}))
}

const NOTICES = new WeakMap<ProxySkew, WeakMap<readonly Node[], (readonly SkewNotice[] | undefined)[]>>()

function noticesOf(skew: ProxySkew, nodes: readonly Node[], annotated: boolean, facts: {nodeHints: boolean; emptyZoneHint: boolean}): SkewNotice[] {
  const newestGate = skew.classes.some((c) => c.preferSameGate)
  const groups = new Map<string, SkewNotice>()
  for (const n of [...nodes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))) {
    const name = n.metadata.name
    const r = skew.rulesOf(name)
    const zone = n.metadata.labels?.[LABEL_ZONE] || null
    let effect: SkewNotice['effect'] | null = null
    if (r.requireAnnotation && !annotated) effect = 'ignores-hints-without-annotation'
    else if (r.requireAnnotation && zone === null && facts.emptyZoneHint) effect = 'ignores-hints-without-zone'
    else if (!r.preferSameGate && newestGate && facts.nodeHints) effect = 'ignores-node-hints'
    if (effect === null) continue
    const minor = proxyMinor(skew.versions.get(name)) ?? r.minor ?? 'of unknown version'
    const key = `${minor}\u0000${zone ?? ''}\u0000${effect}`
    const g = groups.get(key)
    if (g) g.nodes.push(name)
    else groups.set(key, {proxyVersion: minor, zone, nodes: [name], effect, message: ''})
  }
  const out = [...groups.values()]
  for (const g of out) g.message = skewMessage(g)
  return out
}

function skewMessage(g: Omit<SkewNotice, 'message'>): string {
  const n = g.nodes.length
  const who = `${n} node${n === 1 ? '' : 's'} ${g.zone === null ? 'without a zone label' : `in ${g.zone}`} (${g.nodes.join(', ')}) run${n === 1 ? 's' : ''} kube-proxy ${g.proxyVersion}`
  switch (g.effect) {
    case 'ignores-node-hints':
      return `${who}, which ignores node hints: PreferSameNode acts as PreferSameZone there`
    case 'ignores-hints-without-annotation':
      return `${who}, which reads hints only for Services annotated service.kubernetes.io/topology-mode: ${n === 1 ? 'it routes' : 'they route'} to every endpoint`
    case 'ignores-hints-without-zone':
      return `${who}, which ignores hints on a node without a zone label: ${n === 1 ? 'it routes' : 'they route'} to every endpoint`
  }
}

// Port of kubernetes/kubernetes pkg/proxy/endpointslicecache.go (Kubernetes v1.36.3):
// `EndpointSliceCache.addEndpoints` and the slice filtering of `endpointInfoByServicePort`,
// turning EndpointSlices into the proxy endpoints of one service port, as a pure function; and,
// for kube-proxy before 1.36 (`localCopyWins`), v1.33.13's merge rule for one address in
// several slices, `if !exists || isLocal` (replaced in 1.36 by kubernetes/kubernetes#135593).
//
// Ordering: upstream keeps endpoints in maps and sorts by "IP:port"; we keep every list in
// the order the endpoints first appear (across the slices, or in the input array).

import type {EndpointSlice} from '../api/types.js'
import type {ProxyEndpoint} from './endpoint.js'

export interface ProxyEndpointsOptions {
  /** PreferSameTrafficDistribution feature gate (locked on from 1.35). Off: node hints are dropped. */
  preferSameGate: boolean
  /**
   * Only slices of this address family (a per-family proxier). FQDN slices are always skipped,
   * kube-proxy never programs them. Unset: IPv4 and IPv6 slices both count.
   */
  addressType?: 'IPv4' | 'IPv6'
  /**
   * Only slices carrying a port with this name (unset/null port name counts as ""), whose port
   * number is set and non-zero, as kube-proxy builds its list per service port. Unset: every
   * slice counts, whatever its ports.
   */
  portName?: string
  /** With portName: the port's protocol too (upstream's ServicePortName key; unset reads as TCP, the API default). */
  protocol?: string
  /**
   * kube-proxy before 1.36 on this node: of several copies of one address, a copy whose nodeName
   * is this node replaces an earlier one, any other copy never does (v1.33.13 addEndpoints
   * `if _, exists := endpointSet[...]; !exists || isLocal`). Upstream walks the slices in Go map
   * order, so only one local copy (or one copy in all) gives a certain answer; ours takes input order.
   */
  localCopyWins?: string
}

/** addEndpoints' `sets.New[string]()` of a hint list's names; null when there are none. */
function hintSet(list: readonly {name: string}[] | null | undefined, shared?: Map<string, ReadonlySet<string>>): ReadonlySet<string> | null {
  if (!list || list.length === 0) return null
  if (list.length === 1 && shared) {
    // One name (the usual case): one read-only Set per name, shared by the endpoints of a call.
    const name = list[0]!.name
    let set = shared.get(name)
    if (set === undefined) shared.set(name, (set = new Set([name])))
    return set
  }
  return new Set(list.map((h) => h.name))
}

/**
 * endpointInfoByServicePort: a slice counts for a service port when it has a port of that
 * name (and protocol, when given: the ServicePortName key is name and protocol) with a non-nil,
 * non-zero number. (Upstream skips a port whose name is nil; we read it as "", the name the
 * EndpointSlice controller writes for an unnamed port. A nil protocol reads as TCP, the API default.)
 */
export function sliceHasPort(slice: EndpointSlice, portName: string, protocol?: string): boolean {
  return (slice.ports ?? []).some((p) => (p.name ?? '') === portName && p.port != null && p.port !== 0 && (protocol === undefined || (p.protocol || 'TCP') === protocol))
}

/**
 * endpointslicecache.go `addEndpoints` (called per slice by `endpointInfoByServicePort`) semantics: skip endpoints without addresses; unset ready/serving count as
 * true; terminating only when set and true; node hints only when preferSameGate; the same IP from
 * several slices merged with a non-terminating copy winning.
 *
 * Merging follows upstream's rule `if !exists || !terminating { overwrite }`, applied in input
 * order: a later non-terminating copy replaces an earlier one; a terminating copy never replaces
 * anything. (Upstream walks slices in Go map order, so with two non-terminating copies its result is
 * undefined; ours is "the last non-terminating copy in input order".) The merged endpoint keeps the
 * position where its IP first appeared.
 */
export function proxyEndpointsFromSlices(slices: EndpointSlice[], opts: ProxyEndpointsOptions): ProxyEndpoint[] {
  const read = slices.filter(
    (slice) =>
      slice.addressType !== 'FQDN' &&
      (opts.addressType === undefined || slice.addressType === opts.addressType) &&
      (opts.portName === undefined || sliceHasPort(slice, opts.portName, opts.protocol)),
  )
  let most = 0
  for (const slice of read) most += slice.endpoints?.length ?? 0
  const merged = new MergedEndpoints(opts.preferSameGate, most)
  for (const slice of read) merged.addSlice(slice)
  return merged.finish(opts.localCopyWins)
}

/**
 * The one-name zone-hint Sets of every call, read only (ours): a Service's few zones made a Set
 * each in every call, four or five calls per Service when the advisor evaluates its modes. Zone
 * names are few; the map starts again past ZONE_SETS_MAX names (a long-running watch or serve
 * meeting ever new names keeps no more than that).
 */
const ZONE_SETS = new Map<string, ReadonlySet<string>>()
const ZONE_SETS_MAX = 1024
function zoneSets(): Map<string, ReadonlySet<string>> {
  if (ZONE_SETS.size > ZONE_SETS_MAX) ZONE_SETS.clear()
  return ZONE_SETS
}

/**
 * The merged proxy endpoints of slices added one by one. (The loop over a slice's endpoints is a
 * method of its own: V8 optimises it after a few slices, where a loop nested in the loop over
 * the slices left optimised code at the end of every slice.)
 */
class MergedEndpoints {
  /**
   * Every endpoint with an address, in order, before merging; sized for every endpoint (a list
   * grown by push is copied as it grows).
   */
  private readonly all: ProxyEndpoint[]
  /** Whether an IP repeats among those added so far. */
  private readonly repeats: Repeats
  private n = 0
  /** Zone names are few: their one-name Sets are shared by every call (ZONE_SETS). */
  private readonly zoneSets = zoneSets()
  private readonly nodeSets = new Map<string, ReadonlySet<string>>()

  constructor(
    private readonly preferSameGate: boolean,
    most: number,
  ) {
    this.all = new Array<ProxyEndpoint>(most)
    this.repeats = new Repeats(most)
  }

  /**
   * The merged endpoints (call once, after the last slice). Usually no IP repeats (`repeats`
   * tells); else upstream's rule, copy by copy in order:
   * `if !exists || !terminating { overwrite }`.
   */
  finish(localCopyWins?: string): ProxyEndpoint[] {
    const {all, n} = this
    all.length = n
    if (!this.repeats.found) return all
    const replaces = (pe: ProxyEndpoint) => (localCopyWins === undefined ? !pe.terminating : localCopyWins !== '' && pe.nodeName === localCopyWins)
    const out: ProxyEndpoint[] = []
    const at = new Map<string, number>()
    for (let k = 0; k < n; k++) {
      const pe = all[k]!
      const i = at.get(pe.ip)
      if (i === undefined) {
        at.set(pe.ip, out.length)
        out.push(pe)
      } else if (replaces(pe)) {
        out[i] = pe
      }
    }
    return out
  }

  addSlice(slice: EndpointSlice): void {
    const {all, repeats} = this
    const sliceName = slice.metadata.name
    const eps = slice.endpoints ?? []
    for (let i = 0; i < eps.length; i++) {
      const ep = eps[i]!
      const ip = ep.addresses?.[0]
      if (ip === undefined) continue // "Ignoring invalid endpoint port with empty address"
      const c = ep.conditions ?? {}
      if (!repeats.found) repeats.add(ip)
      all[this.n++] = {
        ip,
        ready: c.ready == null || c.ready,
        serving: c.serving == null || c.serving,
        terminating: c.terminating === true,
        nodeName: ep.nodeName ?? null,
        zone: ep.zone ?? null,
        zoneHints: hintSet(ep.hints?.forZones, this.zoneSets),
        nodeHints: this.preferSameGate ? hintSet(ep.hints?.forNodes, this.nodeSets) : null,
        sliceName,
      }
    }
  }
}

/**
 * Whether some string of `ips` repeats (ours, for `finish`). A canonical dotted-quad IPv4 address
 * (four decimal numbers 0-255 without leading zeros: what the API server's validation keeps for
 * an IPv4 EndpointSlice) is one 32-bit number, and two canonical strings are equal exactly when
 * their numbers are: they are compared as numbers, in an open-addressing table. Any other string
 * goes to a Set (a canonical string never equals a non-canonical one). This is for the first
 * call: V8 hashes a string the first time it meets it as a key, and for 50,000 new strings that
 * was most of a Set's cost (about 20 ms of CPU, against 3-4 ms once the hashes are cached).
 */
export function anyRepeats(ips: readonly string[]): boolean {
  const seen = new Repeats(ips.length)
  for (let i = 0; i < ips.length && !seen.found; i++) seen.add(ips[i]!)
  return seen.found
}

/**
 * Up to this many strings, Repeats keeps the strings in a list and compares each new one with
 * every earlier one (at most 120 comparisons). A Service of a few endpoints then allocates no
 * table: a typed array of more than 64 bytes (the 32 slots of 10 addresses) is allocated
 * outside V8's heap, and that fixed cost was most of Repeats' time when the advisor explains
 * thousands of small Services five times each (docs/design.md, "The advisor's cost").
 */
const FEW = 16
const NO_TABLE = new Int32Array(0)

/**
 * `anyRepeats` one string at a time, for at most `most` strings: `MergedEndpoints` adds each
 * address as it reads the endpoint, while its characters are in the CPU's cache (a later pass
 * over 50,000 addresses read them from memory again).
 *
 * The table holds each number as an int32 (0: an empty slot; the number 0, "0.0.0.0", is kept
 * aside). A number's slot is its low bits folded with its high ones: addresses handed out in order
 * (a Pod CIDR) fill neighbouring slots, so the table is read in order, not at random. Should the
 * numbers collide much (more probes than 4 per address), the table is built again with Fibonacci
 * hashing (the top bits of the number times 2^32 / phi), which spreads any such pattern.
 */
class Repeats {
  found = false
  private readonly bits: number
  private readonly mask: number
  private table: Int32Array
  private zero = false
  private fibonacci = false
  /** Probes left before the table is built again with Fibonacci hashing. */
  private budget: number
  private others: Set<string> | undefined
  /** At most FEW strings: the strings themselves, compared one by one (no table). */
  private readonly few: string[] | undefined

  constructor(most: number) {
    if (most <= FEW) {
      this.few = []
      this.bits = 0
      this.mask = 0
      this.table = NO_TABLE
      this.budget = 0
      return
    }
    let bits = 4
    while (1 << bits < 2 * most) bits++
    this.bits = bits
    this.mask = (1 << bits) - 1
    this.table = new Int32Array(this.mask + 1)
    this.budget = 4 * most + 16
  }

  add(ip: string): void {
    const few = this.few
    if (few !== undefined) {
      for (let k = 0; k < few.length; k++) if (few[k] === ip) this.found = true
      few.push(ip)
      return
    }
    const v = ipv4Number(ip)
    if (v < 0) {
      this.others ??= new Set()
      if (this.others.has(ip)) this.found = true
      else this.others.add(ip)
    } else if (v === 0) {
      if (this.zero) this.found = true
      this.zero = true
    } else if (this.place(v | 0)) this.found = true
  }

  private slot(w: number): number {
    return this.fibonacci ? Math.imul(w, 0x9e3779b1) >>> (32 - this.bits) : (w ^ (w >>> this.bits)) & this.mask
  }

  /** Puts w (not 0) in the table; true when it was there. */
  private place(w: number): boolean {
    const {table, mask} = this
    let h = this.slot(w)
    while (table[h] !== 0) {
      if (table[h] === w) return true
      h = (h + 1) & mask
      if (--this.budget < 0 && !this.fibonacci) {
        this.spread()
        return this.place(w)
      }
    }
    table[h] = w
    return false
  }

  /** The table built again with Fibonacci hashing (the numbers in it are distinct). */
  private spread(): void {
    const old = this.table
    this.fibonacci = true
    this.table = new Int32Array(old.length)
    for (let k = 0; k < old.length; k++) if (old[k] !== 0) this.place(old[k]!)
  }
}

/** The 32-bit number of a canonical dotted-quad IPv4 string ("10.0.0.1"); -1 for any other string. */
export function ipv4Number(s: string): number {
  const len = s.length
  if (len < 7 || len > 15) return -1
  let v = 0
  let part = 0
  let digits = 0
  let dots = 0
  // Digits first (most characters are); a part is checked against 255 at its end (at most 15
  // characters: a part of many digits is still an exact number); v is shifted as an int32 and
  // read back as unsigned at the end.
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i)
    const d = c - 48
    if (d >= 0 && d <= 9) {
      // A leading zero only as the whole part ("0").
      if (digits === 1 && part === 0) return -1
      part = part * 10 + d
      digits++
    } else if (c === 46) {
      // '.': ends a part of digits, at most 255
      if (digits === 0 || dots === 3 || part > 255) return -1
      v = (v << 8) | part
      part = 0
      digits = 0
      dots++
    } else return -1
  }
  if (dots !== 3 || digits === 0 || part > 255) return -1
  return ((v << 8) | part) >>> 0
}

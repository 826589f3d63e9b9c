// apply --wait: polls the Service's EndpointSlices until the controller's hints equal the
// prediction. Separate from apply-run.ts so the loop runs in unit tests on a virtual clock.
import {compareHints, type HintDifference, type PredictedEndpoint} from '../engine/plan.js'
import type {EndpointSlice} from '../engine/types.js'

export interface WaitResult {
  matched: boolean
  perZone: boolean
  differences: HintDifference[]
}

export interface WaitOptions {
  /** Lists the Service's EndpointSlices now. */
  list: () => Promise<EndpointSlice[]>
  predicted: readonly PredictedEndpoint[]
  perZone: boolean
  timeoutMs: number
  /**
   * The slices as read before the write, or undefined when nothing was written. Slices
   * unchanged since then may simply not have been synced by the controller yet.
   */
  before: readonly EndpointSlice[] | undefined
  /** True once SIGINT/SIGTERM arrived. */
  interrupted: () => boolean
  settleMs?: number
  pollMs?: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
}

const signatureOf = (slices: readonly EndpointSlice[]) => slices.map((s) => `${s.metadata.name}@${s.metadata.resourceVersion}`).join(',')

/**
 * Polls until the live hints equal the prediction, or until they have stopped changing for a
 * settle period after the controller wrote them (then reports the difference), bounded by
 * timeoutMs. A match on slices that
 * are still exactly as they were before the write is not yet the controller's answer: the
 * controller may not have synced the change (the prediction can equal the old hints); such a
 * match counts once it has held for the settle period (a controller that needs to write
 * nothing writes nothing).
 */
export async function waitForController(o: WaitOptions): Promise<WaitResult> {
  const now = o.now ?? Date.now
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const settleMs = Math.min(o.settleMs ?? 5000, o.timeoutMs)
  const pollMs = o.pollMs ?? 250
  const beforeSignature = o.before === undefined ? undefined : signatureOf(o.before)
  const start = now()
  let lastSignature = ''
  let lastChange = start
  let differences: HintDifference[] = []
  for (;;) {
    const slices = await o.list()
    const t = now()
    const signature = signatureOf(slices)
    if (signature !== lastSignature) {
      lastSignature = signature
      lastChange = t
    }
    differences = compareHints(o.predicted, slices, o.perZone)
    const settled = t - lastChange >= settleMs
    const over = t - start >= o.timeoutMs || o.interrupted()
    if (differences.length === 0 && (signature !== beforeSignature || settled || over)) return {matched: true, perZone: o.perZone, differences}
    // A difference on slices still as before the write: the controller has not answered yet
    // (a loaded machine); only the timeout ends that wait.
    if (differences.length > 0 && ((settled && signature !== beforeSignature) || over)) return {matched: false, perZone: o.perZone, differences}
    await sleep(pollMs)
  }
}

// apply --wait: polls the Service's EndpointSlices until the controller's hints equal the
// prediction. Separate from apply-flow.ts so the loop runs in unit tests on a virtual clock.
import {compareHints, waitVerdict, type HintDifference, type PredictedEndpoint} from '../apply/wait.js'
import type {EndpointSlice} from '../upstream/api/types.js'

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
 * Polls the slices every pollMs until apply/wait.ts's waitVerdict says the controller's answer
 * is in (the hints match the prediction, or differ once its writes settled), bounded by timeoutMs.
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
  for (;;) {
    const slices = await o.list()
    const t = now()
    const signature = signatureOf(slices)
    if (signature !== lastSignature) {
      lastSignature = signature
      lastChange = t
    }
    const differences = compareHints(o.predicted, slices, o.perZone)
    const verdict = waitVerdict({
      match: differences.length === 0,
      changedSinceWrite: signature !== beforeSignature,
      settled: t - lastChange >= settleMs,
      over: t - start >= o.timeoutMs || o.interrupted(),
    })
    if (verdict !== 'wait') return {matched: verdict === 'matched', perZone: o.perZone, differences}
    await sleep(pollMs)
  }
}

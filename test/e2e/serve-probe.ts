// Probes of one running `serve` process, shared by the e2e files that run one (serve-faults,
// serve-restart): a bounded poll that stops at once if serve exits, and /metrics reads.
import type {ChildProcess} from 'node:child_process'

/** What a probe needs of the test's serve: read when called, since the test starts serve later. */
export interface ServeHandle {
  serve: () => ChildProcess | undefined
  stderr: () => string
  address: () => string
}

export function serveProbe(h: ServeHandle) {
  /** Polls probe every 100 ms until it gives a value; fails when serve exits or after timeoutMs. */
  async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const serve = h.serve()
      if (serve && serve.exitCode !== null) throw new Error(`serve exited (${serve.exitCode}) while waiting for ${what}\n${h.stderr()}`)
      const v = await probe().catch(() => null)
      if (v !== null && v !== undefined && v !== false) return v
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- serve stderr:\n${h.stderr()}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const metrics = async () => (await fetch(`http://${h.address()}/metrics`, {signal: AbortSignal.timeout(5000)})).text()
  return {waitFor, metrics}
}

/** The value of one series in a /metrics body (its exact name and labels), or undefined. */
export function seriesValue(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

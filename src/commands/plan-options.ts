// Parsing plan's own flag values: the monthly traffic volume (bytes with a binary or decimal
// suffix), the price per GiB crossing zones (given together or not at all), --max-counts.
// One line per mistake, naming the flag and what to write instead.
import {CliError, ExitCode} from '../errors.js'
import type {PlanOptions} from '../plan/plan.js'

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  pb: 1e15,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
  pib: 2 ** 50,
}

/** --traffic-volume: "40TiB", "500 GB", "1.5PiB", "123456" (bytes) -> bytes. */
export function parseVolume(text: string): number {
  const m = text.trim().match(/^(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z]*)$/)
  const unit = m ? (m[2] === '' ? 1 : UNITS[m[2]!.toLowerCase()]) : undefined
  const bytes = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN
  if (!Number.isFinite(bytes)) {
    throw new CliError(
      `--traffic-volume: invalid value "${text}": use bytes per month with a unit, e.g. 40TiB, 500GB or 1.5PiB (B, KB/KiB, MB/MiB, GB/GiB, TB/TiB, PB/PiB)`,
      ExitCode.USAGE,
    )
  }
  return bytes
}

/** --cross-zone-price: a non-negative price per GiB, e.g. 0.01. */
export function parsePrice(text: string): number {
  const m = text.trim().match(/^(\d+(?:\.\d+)?|\.\d+)$/)
  const v = m ? Number(m[1]) : Number.NaN
  if (!Number.isFinite(v)) throw new CliError(`--cross-zone-price: invalid value "${text}": use a price per GiB such as 0.01`, ExitCode.USAGE)
  return v
}

/** --traffic-volume and --cross-zone-price: both or neither. */
export function parseCost(volume: string | undefined, price: string | undefined): PlanOptions['cost'] {
  if (volume === undefined && price === undefined) return undefined
  if (volume === undefined || price === undefined) {
    const missing = volume === undefined ? '--traffic-volume' : '--cross-zone-price'
    throw new CliError(`--traffic-volume and --cross-zone-price go together: add ${missing} (e.g. --traffic-volume 40TiB --cross-zone-price 0.01)`, ExitCode.USAGE)
  }
  return {volumeBytes: parseVolume(volume), pricePerGiB: parsePrice(price)}
}

/** --max-counts: a whole number of at least 1. */
export function parseMaxCounts(text: string): number {
  const t = text.trim()
  if (!/^\d+$/.test(t) || Number(t) < 1) throw new CliError(`--max-counts: invalid value "${text}": use a whole number of at least 1, such as 500`, ExitCode.USAGE)
  return Number(t)
}

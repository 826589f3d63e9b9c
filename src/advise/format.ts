// The advisor's two small rules that printers need too: the bound compare and the percent.
import {BOUND_TOLERANCE} from './types.js'

/** Within the bound: the worst overload is at most the bound (inclusive, with a 1e-9 tolerance). */
export const withinBound = (overload: number | null, bound: number): boolean => (overload ?? 0) <= bound + BOUND_TOLERANCE

/** 0.222 -> "22.2%", 0.2 -> "20%". */
export const percent = (x: number): string => `${+(x * 100).toFixed(1)}%`

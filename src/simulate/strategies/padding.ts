// KEP-2004's padding (hysteresis) around the starting threshold. Not implemented by the
// evaluation tool (it is stateless per row); the KEP text (kubernetes/enhancements
// keps/sig-network/2004-topology-aware-subsetting, last text 2fdd5ac) gives the example
// "starting threshold 9, padding 3: start subsetting at 12 and keep it until N falls to 6".
//
//   previous mode "subsetting": keep subsetting while N >= T - P
//   previous mode "disabled" (or none): start subsetting only when N >= T + P
//
// with T = startingThreshold x |Z| and P = padding (default |Z|, the KEP's example). The KEP does
// not say whether the edges are inclusive; we take them as inclusive. When subsetting is on,
// the "local" algorithm runs without its own starting-threshold test (the hysteresis replaces it).
import {local, type LocalOptions} from './local.js'
import {random} from './random.js'
import type {Allocation, Region} from './region.js'

export type SubsettingMode = 'subsetting' | 'disabled'

export interface PaddingOptions extends LocalOptions {
  previous: SubsettingMode
  /** P; default: the number of zones */
  padding?: number
}

export function subsettingOn(region: Region, opts: PaddingOptions): boolean {
  const Z = region.zones.length
  const T = (opts.startingThreshold ?? 3) * Z
  const P = opts.padding ?? Z
  return opts.previous === 'subsetting' ? region.total >= T - P : region.total >= T + P
}

export function localWithPadding(region: Region, opts: PaddingOptions): Allocation {
  if (!subsettingOn(region, opts)) return {...random(region), fallback: 'padding'}
  const {threshold} = opts
  return local(region, {threshold, startingThreshold: 0})
}

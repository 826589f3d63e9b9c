// Small helpers the explanation's modules share.
import {CONTROLLER_NAME, LABEL_MANAGED_BY, type EndpointSlice} from '../upstream/api/types.js'

/** The slice is the EndpointSlice controller's (its managed-by label). */
export const isManaged = (s: EndpointSlice) => s.metadata.labels?.[LABEL_MANAGED_BY] === CONTROLLER_NAME

/** Code-unit order, as Go's sort.Strings (no locale). */
export const sortStrings = (xs: Iterable<string>) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/** Endpoints the controller counts as ready (conditions.ready set and true). */
export const countReady = (slices: readonly EndpointSlice[]) => slices.reduce((a, s) => a + (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length, 0)

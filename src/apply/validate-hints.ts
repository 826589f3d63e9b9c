// The API server's validation of an EndpointSlice's hints (discovery validation), run on
// apply's planned slices before any request is sent.
import type {EndpointSlice} from '../upstream/api/types.js'

/** At most this many zone hints and node hints per endpoint (discovery validation). */
const MAX_HINTS = 8

export interface ValidationError {
  /** The field path the API server would report, e.g. endpoints[3].hints.forZones[0].name. */
  path: string
  message: string
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/

/**
 * Checks the hints of a slice the way the API server validates them (discovery validation):
 * at most 8 zones and 8 nodes per endpoint, unique names, zone names valid label values
 * (63 characters, the empty string allowed), node names lowercase RFC 1123 subdomains
 * (253 characters). Run before any request is sent.
 */
export function validateSliceHints(slice: EndpointSlice): ValidationError[] {
  const errors: ValidationError[] = []
  ;(slice.endpoints ?? []).forEach((e, i) => {
    const h = e.hints
    if (h == null) return
    const check = (key: 'forZones' | 'forNodes', valid: (n: string) => string | null) => {
      const list = h[key] ?? []
      const base = `endpoints[${i}].hints.${key}`
      if (list.length > MAX_HINTS) {
        errors.push({path: base, message: `Too many: ${list.length}: must have at most ${MAX_HINTS} items`})
        return
      }
      const seen = new Set<string>()
      list.forEach((z, j) => {
        const name = z.name
        if (seen.has(name)) errors.push({path: `${base}[${j}].name`, message: `Duplicate value: ${JSON.stringify(name)}`})
        seen.add(name)
        const problem = valid(name)
        if (problem) errors.push({path: `${base}[${j}].name`, message: `Invalid value: ${JSON.stringify(name)}: ${problem}`})
      })
    }
    check('forZones', (n) =>
      n.length > 63
        ? 'must be no more than 63 characters'
        : LABEL_VALUE.test(n)
          ? null
          : "a valid label value must be empty or consist of alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character",
    )
    check('forNodes', (n) =>
      n.length > 253
        ? 'must be no more than 253 characters'
        : DNS1123_SUBDOMAIN.test(n)
          ? null
          : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
    )
  })
  return errors
}

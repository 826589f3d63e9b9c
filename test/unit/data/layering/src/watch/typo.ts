// Violates not-to-unresolvable.
// @ts-expect-error: no such module, on purpose
import {nothing} from './no-such-module.js'

export const typo = (): unknown => nothing

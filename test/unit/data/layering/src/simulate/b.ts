import {a} from './a.js'

export const b = (): number => (a.length ? 1 : 0)

// Violates no-cycles: a.ts and b.ts import each other at run time.
import {b} from './b.js'

export const a = (): number => b() + 1

// Allowed: a cycle closed by an `import type` only (as src/commands/apply.ts and apply-run.ts).
import type {Lint} from './lint.js'

export const run = async (): Promise<Lint> => (await import('./lint.js')).lint()

import type {run} from './run.js'

export interface Lint {
  of?: typeof run
}
export const lint = (): Lint => ({})

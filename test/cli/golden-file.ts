// One golden file: compared byte for byte, written when UPDATE_GOLDEN is set, or when it is
// missing outside CI (a new command or example). In CI (process.env.CI) a missing file is a
// failure: a golden file that was never committed must not pass unchecked.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'

export function checkGolden(file: string, got: string, env: NodeJS.ProcessEnv = process.env): {expected: string} {
  const missing = !existsSync(file)
  if (missing && env.CI && !env.UPDATE_GOLDEN) {
    throw new Error(`${file} is missing: write it with UPDATE_GOLDEN=1 npx vitest run test/cli/golden.test.ts and commit it`)
  }
  if (env.UPDATE_GOLDEN || missing) writeFileSync(file, got)
  return {expected: readFileSync(file, 'utf8')}
}

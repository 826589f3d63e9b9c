// What the V8 code caches of the standalone executable save at start-up: two builds of it,
// A (with caches) and B (without: `node scripts/package.mjs --target T --no-code-cache`),
// run in turn, round by round, on `--help` and `explain -A --from-file
// examples/three-zones.yaml`; each figure is the median over rounds, each ratio the median of
// A/B within a round. --arm64 runs both under the arm64 runner (scripts/arm64-runner.mjs:
// qemu-aarch64 on an amd64 machine), where absolute times mean nothing and the ratios do.
//
//   node scripts/package.mjs --target linux-arm64 && cp .cache/sea-build/linux-arm64/kubectl-topology /tmp/with-cache
//   node scripts/package.mjs --target linux-arm64 --no-code-cache && cp .cache/sea-build/linux-arm64/kubectl-topology /tmp/no-cache
//   node bench/code-cache.mjs --arm64 [--runs 15] /tmp/with-cache /tmp/no-cache
//
// Each round is one hyperfine invocation (`-N --runs 1`) running the four commands once;
// two warm-up rounds first. Prints a Markdown table.
import {loadavg} from 'node:os'
import {resolve} from 'node:path'
import {interleavedRounds, line, median, paired} from './rounds.mjs'
import {ensureArm64Runner} from '../scripts/arm64-runner.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const i = args.indexOf('--runs')
const RUNS = i >= 0 ? Number(args.splice(i, 2)[1]) : 15
const arm64 = args.includes('--arm64')
const [a, b] = args.filter((x) => !x.startsWith('--')).map((p) => resolve(p))
if (!a || !b) throw new Error('usage: node bench/code-cache.mjs [--arm64] [--runs N] WITH_CACHE WITHOUT_CACHE')
const prefix = arm64 ? ensureArm64Runner() : []

const COMMANDS = {'--help': ['--help'], 'explain -A --from-file examples/three-zones.yaml': ['explain', '-A', '--from-file', 'examples/three-zones.yaml']}
const cases = Object.entries(COMMANDS).flatMap(([name, argv]) => [
  {name, build: 'A', argv: [...prefix, a, ...argv]},
  {name, build: 'B', argv: [...prefix, b, ...argv]},
])

const load0 = loadavg()
const samples = interleavedRounds(cases, RUNS, ROOT)

const ms = (s) => `${Math.round(s * 1000)} ms`
const fmt = (l) => l.map((x) => x.toFixed(1)).join(' ')
const out = [
  `${arm64 ? `under ${line(prefix)}` : 'native'}; ${RUNS} rounds after 2 warm-ups; ${new Date().toISOString().slice(0, 16)}Z; load average ${fmt(load0)} at start, ${fmt(loadavg())} at end`,
  `A: ${a}`,
  `B: ${b}`,
  '',
  '| command | A median CPU | B median CPU | CPU A/B | A median wall | B median wall | wall A/B |',
  '|---|---|---|---|---|---|---|',
]
for (let k = 0; k < cases.length; k += 2) {
  const [sa, sb] = [samples[k], samples[k + 1]]
  out.push(
    `| \`${cases[k].name}\` | ${ms(median(sa.cpu))} | ${ms(median(sb.cpu))} | ${paired(sa.cpu, sb.cpu).toFixed(2)}x | ${ms(median(sa.wall))} | ${ms(median(sb.wall))} | ${paired(sa.wall, sb.wall).toFixed(2)}x |`,
  )
}
process.stdout.write(`${out.join('\n')}\n`)

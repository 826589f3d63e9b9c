// The interleaved measurement shared by bench/startup.mjs and bench/code-cache.mjs: every
// round is one hyperfine invocation (`-N --runs 1`) that runs each command once in turn, so a
// change of load hits all of them alike; two warm-up rounds first (discarded: they also make
// the npm install's per-command code cache). Ratios are medians of per-round pairs. hyperfine
// is installed (Debian's package, scripts/debian.mjs) when missing.
import {spawnSync} from 'node:child_process'
import {readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {aptInstall, which} from '../scripts/debian.mjs'

const q = (s) => (/[^\w@%+=:,./-]/.test(s) ? `'${s.replace(/'/g, "'\\''")}'` : s)
/** A shell-quoted command line (hyperfine -N splits it like a shell). */
export const line = (argv) => argv.map(q).join(' ')

/** Per case, the wall and CPU (user+sys) seconds of each of `runs` rounds, run from `cwd`. */
export function interleavedRounds(cases, runs, cwd) {
  // hyperfine is a Debian package; install it as scripts/cluster.mjs installs etcd.
  if (!which('hyperfine')) aptInstall(['hyperfine'], 'hyperfine (the benches time commands with it)')
  const exportFile = join(tmpdir(), `bench-rounds-${process.pid}.json`)
  const samples = cases.map(() => ({wall: [], cpu: []}))
  for (let round = -2; round < runs; round++) {
    const hf = spawnSync('hyperfine', ['-N', '--runs', '1', '--style', 'none', '--export-json', exportFile, ...cases.map((c) => line(c.argv))], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    if (hf.status !== 0) throw new Error('hyperfine failed (is it installed? Debian: apt-get install hyperfine)')
    if (round < 0) continue
    JSON.parse(readFileSync(exportFile, 'utf8')).results.forEach((r, k) => {
      samples[k].wall.push(r.times[0])
      samples[k].cpu.push(r.user + r.system)
    })
  }
  rmSync(exportFile)
  return samples
}

export const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
/** The median over rounds of x/y, each pair from the same round. */
export const paired = (xs, ys) => median(xs.map((x, k) => x / ys[k]))

/**
 * The writer's floor (issue 23's lower bounds): V8's own indented JSON.stringify of the JSON text a
 * command printed, re-made from its parsed document in this process `times` times. Returns the
 * median CPU seconds, and whether the text is the same bytes (it must be, for the bound to hold).
 */
export function writerFloor(printed, times) {
  const doc = JSON.parse(printed)
  const cpu = []
  let same = false
  for (let i = 0; i < times; i++) {
    const t0 = process.cpuUsage()
    const text = `${JSON.stringify(doc, null, 2)}\n`
    const t = process.cpuUsage(t0)
    cpu.push((t.user + t.system) / 1e6)
    same = text === printed
  }
  return {seconds: median(cpu), same}
}

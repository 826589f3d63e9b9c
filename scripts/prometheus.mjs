// Prometheus and promtool for the tests (serve's alert rules, the e2e with a real Prometheus):
// Debian's `prometheus` package, installed with apt-get when missing (as scripts/cluster.mjs
// installs etcd). Plain Node ESM with built-ins only.
import {aptInstall, which} from './debian.mjs'

const DIRS = ['/usr/bin', '/usr/local/bin']

/** Paths of prometheus and promtool, installing Debian's package first when either is missing. */
export function ensurePrometheus(log = (m) => process.stderr.write(`${m}\n`)) {
  let prometheus = which('prometheus', DIRS)
  let promtool = which('promtool', DIRS)
  if (!prometheus || !promtool) {
    aptInstall(['prometheus'], 'prometheus/promtool', log)
    prometheus = which('prometheus', DIRS)
    promtool = which('promtool', DIRS)
  }
  if (!prometheus || !promtool) throw new Error('the prometheus package is installed but prometheus or promtool is not on PATH')
  return {prometheus, promtool}
}

// Installs Debian packages the tests need when they are missing (apt-get as root, or with
// `sudo -n`), so a fresh machine and CI need no manual step. Used by scripts/cluster.mjs
// (etcd) and scripts/arm64-runner.mjs (qemu and the arm64 libraries).
import {spawnSync} from 'node:child_process'
import {statSync} from 'node:fs'
import path from 'node:path'

/** The first executable file named `cmd` on PATH or in `extra` directories, or null. */
export function which(cmd, extra = []) {
  for (const dir of [...(process.env.PATH || '').split(path.delimiter), ...extra]) {
    if (!dir) continue
    const p = path.join(dir, cmd)
    try {
      if (statSync(p).isFile()) return p
    } catch {}
  }
  return null
}

/**
 * apt-get installs `packages` (after `apt-get update`). `what` names what they are for in
 * the error when neither root nor sudo is available.
 */
export function aptInstall(packages, what, log = (m) => process.stderr.write(`${m}\n`)) {
  log(`${what} missing: installing Debian package(s) ${packages.join(' ')} ...`)
  const t0 = Date.now()
  const asRoot = process.getuid?.() === 0
  const sudo = asRoot ? [] : which('sudo') ? ['sudo', '-n'] : null
  if (!sudo) throw new Error(`${what} missing and neither root nor sudo is available: apt-get install ${packages.join(' ')}`)
  if (!which('apt-get')) throw new Error(`${what} missing and there is no apt-get (not Debian or Ubuntu): install ${packages.join(' ')} or their equivalents`)
  const env = {...process.env, DEBIAN_FRONTEND: 'noninteractive'}
  for (const args of [
    ['apt-get', 'update'],
    ['apt-get', 'install', '-y', '--no-install-recommends', ...packages],
  ]) {
    const cmd = [...sudo, ...args]
    const r = spawnSync(cmd[0], cmd.slice(1), {stdio: ['ignore', 'inherit', 'inherit'], env})
    if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed (exit ${r.status})`)
  }
  log(`${packages.join(' ')} installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
}

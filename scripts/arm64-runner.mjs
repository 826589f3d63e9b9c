// Runs linux-arm64 executables on an amd64 machine: qemu-aarch64 (Debian's qemu-user) with
// the arm64 C and C++ runtime libraries of Debian's cross packages as its sysroot. The
// package tests run the arm64 standalone executable this way. `node scripts/arm64-runner.mjs`
// installs what is missing and prints the runner's command prefix as JSON.
import {existsSync} from 'node:fs'
import {arch} from 'node:os'
import {fileURLToPath} from 'node:url'
import {aptInstall, which} from './debian.mjs'

export const SYSROOT = '/usr/aarch64-linux-gnu'
// What Node's linux-arm64 binary links against (ldd: libc, libm, libdl, libpthread,
// libstdc++, libgcc_s, libatomic) and the dynamic loader.
const LIBS = ['lib/ld-linux-aarch64.so.1', 'lib/libc.so.6', 'lib/libstdc++.so.6', 'lib/libgcc_s.so.1', 'lib/libatomic.so.1']
const PACKAGES = ['qemu-user', 'libc6-arm64-cross', 'libstdc++6-arm64-cross', 'libgcc-s1-arm64-cross', 'libatomic1-arm64-cross']

/** The command prefix that runs an arm64 executable here: [] on arm64, qemu on amd64, or null. */
export function arm64Runner() {
  if (arch() === 'arm64') return []
  const qemu = which('qemu-aarch64')
  if (!qemu || LIBS.some((l) => !existsSync(`${SYSROOT}/${l}`))) return null
  return [qemu, '-L', SYSROOT]
}

/** arm64Runner(), installing qemu-user and the arm64 libraries first when they are missing
 *  (throws when they cannot be installed: no apt-get, neither root nor sudo). */
export function ensureArm64Runner(log = (m) => process.stderr.write(`arm64-runner: ${m}\n`)) {
  const found = arm64Runner()
  if (found) return found
  aptInstall(PACKAGES, 'an arm64 runner (qemu-aarch64 and the arm64 libraries)', log)
  const runner = arm64Runner()
  if (!runner) throw new Error(`installed ${PACKAGES.join(' ')} but qemu-aarch64 or ${SYSROOT}/lib is still missing`)
  return runner
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${JSON.stringify(ensureArm64Runner())}\n`)

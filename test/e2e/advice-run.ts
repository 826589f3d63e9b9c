// Running what the tool prints, as a user would: every command line through `/bin/sh -c` under
// the harness's PATH (scripts/cluster.mjs run: this minor's kubectl first, and
// `kubectl-topology` is this checkout's build, found by kubectl's plugin discovery), on a
// terminal (a pty: `kubectl topology apply` without --yes asks "[y/N]" there, and the user
// answers "y"; off a terminal it only previews), and reading the tool's own reports the same way.
import {spawn} from 'node:child_process'

export interface ShellResult {
  code: number
  /** stdout and stderr as the terminal showed them (pty), or stdout alone (pipe). */
  output: string
  stderr: string
  /** How many "[y/N]" questions were answered "y" (pty only). */
  answered: number
}

// A minimal terminal: /bin/sh -c LINE on a pty, "y" to each "[y/N] " question, everything it
// printed on stdout, {code, answered} on stderr. Bounded: the child is killed after 120 s of silence.
const PTY_DRIVER = String.raw`
import json, os, pty, select, signal, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv('/bin/sh', ['/bin/sh', '-c', sys.argv[1]])
buf = b''
answered = 0
while True:
    try:
        ready, _, _ = select.select([fd], [], [], 120)
    except InterruptedError:
        continue
    if not ready:
        os.kill(pid, signal.SIGKILL)
        break
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    buf += data
    while buf.count(b'[y/N] ') > answered:
        os.write(fd, b'y\n')
        answered += 1
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(buf)
sys.stderr.write(json.dumps({'code': os.waitstatus_to_exitcode(status), 'answered': answered}))
`

function spawnCollect(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{code: number; stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`timed out after ${timeoutMs} ms: ${cmd} ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code: code ?? 128, stdout, stderr})
    })
  })
}

function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env, ...extra}
  delete env.FORCE_COLOR
  env.NO_COLOR = '1'
  return env
}

/** LINE through /bin/sh -c on a terminal, answering "y" to the tool's questions. */
export async function onTerminal(line: string, env: Record<string, string> = {}): Promise<ShellResult> {
  const r = await spawnCollect('python3', ['-c', PTY_DRIVER, line], shellEnv({TERM: 'dumb', ...env}), 180_000)
  const m = /\{"code": (-?\d+), "answered": (\d+)\}\s*$/.exec(r.stderr)
  if (!m) throw new Error(`pty driver failed for ${line}: exit ${r.code}\n${r.stderr}`)
  return {code: Number(m[1]), output: r.stdout.replaceAll('\r\n', '\n'), stderr: '', answered: Number(m[2])}
}

/** LINE through /bin/sh -c with stdout and stderr on pipes (for the reports the test reads). */
export async function piped(line: string, env: Record<string, string> = {}, timeoutMs = 180_000): Promise<ShellResult> {
  const r = await spawnCollect('/bin/sh', ['-c', line], shellEnv(env), timeoutMs)
  return {code: r.code, output: r.stdout, stderr: r.stderr, answered: 0}
}

/** `kubectl topology ARGS` through kubectl (plugin discovery); stdout, and a failure on a non-zero exit. */
export async function topology(args: string, env: Record<string, string> = {}): Promise<string> {
  const r = await piped(`kubectl topology ${args}`, env)
  if (r.code !== 0) throw new Error(`kubectl topology ${args}: exit ${r.code}\n${r.stderr}${r.output}`)
  return r.output
}

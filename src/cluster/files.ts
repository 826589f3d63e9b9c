// Reading a user's file (kubeconfig, snapshot, policy, dataset, token, certificate): the type
// and size are checked BEFORE anything is read, and the read stops at the cap (issue 20, class
// 4: /dev/zero or a 10 GB sparse file given as --from-file was read whole, GBs in seconds).
//
// Types: a regular file, or a FIFO (a pipe: `--kubeconfig <(...)`, `/dev/stdin`), which is
// read in chunks up to the cap. Character and block devices (/dev/zero, a terminal), sockets
// and directories are refused: none holds a document. Caps, per kind (FILE_LIMITS), each far
// above what the file holds at Kubernetes' own limits and below V8's longest string (2^29-24
// characters, about 512 MiB, past which Node cannot hold the text at all):
//
//   snapshot    256 MiB  `kubectl get ... -o yaml` of a cluster at the documented limits
//                        (5,000 nodes, 150,000 pods: kubernetes.io "Considerations for large
//                        clusters") is tens of MB
//   dataset     256 MiB  the KEP's results.csv is a few MB per million rows
//   kubeconfig   16 MiB  client-go reads it whole; real ones are kilobytes
//   certificate  16 MiB  a CA bundle (all of Mozilla's roots) is about 200 KB
//   policy        1 MiB  a check policy is a few lines
//   token         1 MiB  a bearer token (a JWT) is a few KB; the API server (Go's net/http,
//                        DefaultMaxHeaderBytes = 1 << 20) refuses longer request headers
import fs from 'node:fs'

/** Why a file could not be read, in a few words ("no such file", "permission denied", ...). */
export function describeFileError(e: unknown): string {
  if (e instanceof FileLimitError) return e.message
  const code = (e as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'is a directory'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'ENXIO') return 'is a socket, not a file'
  return (e as Error).message ?? String(e)
}

export type FileKind = 'snapshot' | 'dataset' | 'kubeconfig' | 'certificate' | 'policy' | 'token'

const MiB = 1024 * 1024

/** The most bytes read from a file of each kind (see the table above). */
export const FILE_LIMITS: Readonly<Record<FileKind, number>> = {
  snapshot: 256 * MiB,
  dataset: 256 * MiB,
  kubeconfig: 16 * MiB,
  certificate: 16 * MiB,
  policy: 1 * MiB,
  token: 1 * MiB,
}

/** A file refused for its type or size (describeFileError gives its message). */
export class FileLimitError extends Error {}

const size = (bytes: number) => (bytes >= MiB ? `${Math.round((bytes / MiB) * 10) / 10} MiB` : `${bytes} bytes`)

function tooBig(kind: FileKind, bytes: number | null): FileLimitError {
  const limit = FILE_LIMITS[kind]
  const what = bytes === null ? `more than ${size(limit)}` : `${size(bytes)}`
  return new FileLimitError(`${what}: larger than the ${size(limit)} a ${kind} file may hold`)
}

/** Why a file of this type cannot be read (null: a regular file or a FIFO). */
function badType(st: fs.Stats): string | null {
  if (st.isFile() || st.isFIFO()) return null
  if (st.isDirectory()) return 'is a directory'
  if (st.isCharacterDevice()) return 'is a character device (such as /dev/zero or a terminal), not a file'
  if (st.isBlockDevice()) return 'is a block device, not a file'
  if (st.isSocket()) return 'is a socket, not a file'
  return 'is not a regular file'
}

/**
 * The bytes of a file, its type and size checked first and the read bounded by the kind's cap
 * (FILE_LIMITS): a regular file whose size is over the cap is refused without reading it (a
 * sparse file of 10 GB costs nothing), a pipe is read in chunks until the cap. Errors: the fs
 * error (ENOENT, EACCES, ...) or a FileLimitError; describeFileError words both.
 */
export function readFileBounded(path: string, kind: FileKind, limit = FILE_LIMITS[kind]): Buffer {
  const fd = fs.openSync(path, 'r')
  try {
    const st = fs.fstatSync(fd)
    const why = badType(st)
    if (why !== null) throw new FileLimitError(why)
    if (st.isFile() && st.size > limit) throw tooBig(kind, st.size)
    // A regular file may still grow while it is read (a log): never more than limit + 1 bytes.
    const chunks: Buffer[] = []
    let total = 0
    let buf = Buffer.allocUnsafe(st.isFile() ? Math.min(limit + 1, Math.max(st.size + 1, 1)) : 1 << 16)
    let at = 0
    for (;;) {
      if (at === buf.length) {
        chunks.push(buf)
        buf = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total))
        at = 0
      }
      const n = fs.readSync(fd, buf, at, buf.length - at, null)
      if (n === 0) break
      at += n
      total += n
      if (total > limit) throw tooBig(kind, st.isFile() ? total : null)
    }
    chunks.push(buf.subarray(0, at))
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)
  } finally {
    fs.closeSync(fd)
  }
}

/** readFileBounded decoded as UTF-8. */
export function readTextBounded(path: string, kind: FileKind): string {
  return readFileBounded(path, kind).toString('utf8')
}

/** A stream (stdin) read to its end, refused past the kind's cap (FileLimitError). */
export async function readStreamBounded(stream: AsyncIterable<unknown>, kind: FileKind): Promise<string> {
  const limit = FILE_LIMITS[kind]
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    total += b.length
    if (total > limit) throw tooBig(kind, null)
    chunks.push(b)
  }
  return Buffer.concat(chunks, total).toString('utf8')
}

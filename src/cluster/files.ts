// Wording shared by everything that reads a user's file (kubeconfig, snapshot).
/** Why a file could not be read, in a few words ("no such file", "permission denied", ...). */
export function describeFileError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'is a directory'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  return (e as Error).message ?? String(e)
}

// A bearer token kept in a file that something else rotates (a projected ServiceAccount token,
// rewritten by the kubelet before it expires; a token a sidecar refreshes): read again about
// once a minute and after the API server answers 401, as client-go does.
//
// client-go (staging/src/k8s.io/client-go/transport/token_source.go): NewCachedFileTokenSource
// wraps a fileTokenSource whose tokens expire a minute after they were read
// (cachingTokenSource: read again once the cached one is within 10 s of that, so about every
// 50 s); tokenSourceTransport.RoundTrip calls ResetTokenOlderThan(start) when a response is 401,
// so a later request reads the file again (here: when the refused request carried the token
// held now, whenever it was read); and a read that fails while a token is cached keeps
// the cached one ("Unable to rotate token"). The same here: the file's content with
// surrounding white space trimmed; an empty or unreadable file keeps the last token (lastError
// holds why, never the token) and is read again on the next request, so a rotation caught
// half-written heals at once.
import {CliError, ExitCode} from '../errors.js'
import {describeFileError, readTextBounded} from './files.js'
import type {KubeConfig} from './k8s.js'

/** client-go's period: a token read from a file is used this long (less its 10 s leeway). */
export const TOKEN_FILE_PERIOD_MS = 60_000
const LEEWAY_MS = 10_000

export interface TokenFileOptions {
  /** Unix milliseconds; Date.now by default. */
  now?: () => number
  /** Reads the file (trimmed by the caller); readTextBounded by default. */
  read?: (file: string) => string
}

export class TokenFile {
  private current: string
  private readAt: number
  private stale = false
  /** Why the last read did not give a token (undefined: it did). Never holds the token. */
  lastError: string | undefined
  /** How many times the file was read after the first (tests, debugging). */
  rereads = 0
  private readonly now: () => number
  private readonly read: (file: string) => string

  /** first: the token read at start (kubeconfig.ts refuses an empty or unreadable one there). */
  constructor(
    readonly file: string,
    first: string,
    o: TokenFileOptions = {},
  ) {
    this.now = o.now ?? Date.now
    this.read = o.read ?? ((f) => readTextBounded(f, 'token'))
    this.current = first
    this.readAt = this.now()
  }

  /** The token to send now: the cached one, or the file's again once it is old or was refused. */
  token(): string {
    if (!this.stale && this.now() - this.readAt < TOKEN_FILE_PERIOD_MS - LEEWAY_MS) return this.current
    this.rereads++
    let next: string
    try {
      next = this.read(this.file).trim()
    } catch (e) {
      this.lastError = `cannot read ${this.file}: ${describeFileError(e)}`
      return this.current
    }
    if (next === '') {
      this.lastError = `${this.file} is empty`
      return this.current
    }
    this.lastError = undefined
    this.current = next
    this.readAt = this.now()
    this.stale = false
    return next
  }

  /**
   * A request was answered 401 with this Authorization header: when it carried the token held
   * now, the next request reads the file again (client-go's ResetTokenOlderThan); a refusal of
   * a token already replaced changes nothing.
   */
  refused(authorization: string | undefined): void {
    if (authorization === `Bearer ${this.current}`) this.stale = true
  }
}

/**
 * Every request of kc carries the file's current token in place of the one client-node was
 * given at load (kubeconfig.ts: a user's tokenFile / token-file).
 */
export function rotateTokenFile(kc: KubeConfig, file: string, first: string): TokenFile {
  const source = new TokenFile(file, first)
  const apply = kc.applySecurityAuthentication.bind(kc)
  kc.applySecurityAuthentication = async (rc) => {
    await apply(rc)
    rc.setHeaderParam('Authorization', `Bearer ${source.token()}`)
  }
  return source
}

/**
 * In a Pod: client-node reads the projected ServiceAccount token again every 60 s (its FileAuth,
 * unbounded, and not after a 401); here it is read as a tokenFile is. undefined: no token file.
 */
export function inClusterTokenFile(kc: KubeConfig): TokenFile | undefined {
  const file = kc.getCurrentUser()?.authProvider?.config?.tokenFile
  if (typeof file !== 'string' || file === '') return undefined
  const fail = (why: string, cause?: unknown) =>
    new CliError(`cannot use the in-cluster configuration: the ServiceAccount token ${file} ${why}`, ExitCode.KUBECONFIG, cause === undefined ? undefined : {cause})
  let first: string
  try {
    first = readTextBounded(file, 'token').trim()
  } catch (e) {
    throw fail(`cannot be read: ${describeFileError(e)}`, e)
  }
  if (first === '') throw fail('is empty')
  return rotateTokenFile(kc, file, first)
}

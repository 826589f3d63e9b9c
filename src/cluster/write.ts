// Every write apply and reset make to the API server, and the reads they need beyond
// readClusterState: the Service with its managedFields (who owns which field), the
// EndpointSlices of a Service, SelfSubjectAccessReviews. Writes carry a precondition:
// server-side apply with the resourceVersion read, JSON merge patches with
// metadata.resourceVersion, JSON patches that put back the resourceVersion read. A 409 from
// the precondition is a ConflictError, which the caller answers by re-reading and re-planning.

import {CliError, ExitCode} from '../errors.js'
import {FIELD_MANAGER, type JsonPatchOp, type ManagedFieldsEntry} from '../apply/plan.js'
import {LABEL_SERVICE_NAME, type EndpointSlice, type Service} from '../upstream/api/types.js'
import {Client, ENDPOINT_SLICE, SERVICE} from './client.js'
import {apiStatusCode, scrub} from './errors.js'
import type {KubeContext} from './kubeconfig.js'

type Obj = Record<string, unknown>

/** The object changed since it was read (the precondition failed): re-read, re-plan, retry. */
export class ConflictError extends Error {
  constructor(
    readonly kind: 'Service' | 'EndpointSlice',
    readonly objectName: string,
  ) {
    super(`${kind} ${objectName} was modified since it was read`)
    this.name = 'ConflictError'
  }
}

/**
 * A write was sent and its answer never came, or came cut short or unreadable (a timeout, a
 * connection reset, a 5xx, a body that is not the object): the server may have stored the
 * change. The journal keeps the object's record until a re-read tells (apply re-reads it at
 * once; reset compares what the server holds with the record).
 */
export class UnknownOutcomeError extends CliError {
  constructor(
    readonly kind: 'Service' | 'EndpointSlice',
    readonly objectName: string,
    why: string,
    cause: unknown,
    /** The server answered with a 5xx (which does not say whether it stored the change), rather than not at all. */
    status?: number,
  ) {
    const ref = `${kind === 'Service' ? 'service' : 'endpointslice'}/${objectName}`
    super(
      status === undefined
        ? `the answer to the write of ${ref} was lost (${why})`
        : `the write of ${ref} failed with HTTP ${status}, which does not say whether it was stored (${why})`,
      ExitCode.WRITE_UNKNOWN,
      {cause},
    )
    this.name = 'UnknownOutcomeError'
  }
}

/**
 * Failures that happen before a request leaves this process or reaches the API server: nothing
 * can have been stored. Anything else without an HTTP status may have been (error codes of
 * node, undici and proxy.ts; cluster/errors.ts names them for the message).
 */
const NOT_SENT =
  /^(ECONNREFUSED|ENOTFOUND|EAI_\w+|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|EPROTO|ERR_SSL\w*|ERR_TLS\w*|[A-Z_]*CERT[A-Z_]*|INVALID_CA|ERR_PROXY_\w+)$/

function notSent(e: unknown): boolean {
  for (let cur = e as {code?: unknown; cause?: unknown; syscall?: unknown} | undefined, i = 0; cur && typeof cur === 'object' && i < 6; cur = cur.cause as typeof cur, i++) {
    if (typeof cur.code === 'string' && NOT_SENT.test(cur.code)) return true
    if (typeof cur.syscall === 'string' && cur.syscall.startsWith('spawn')) return true
  }
  return false
}

export interface AccessCheck {
  verb: string
  group: string
  resource: string
  /** Why the permission is needed, for the message. */
  why: string
}

interface StatusBody {
  message?: string
  reason?: string
  details?: {causes?: {reason?: string; message?: string; field?: string}[]}
}

function statusOf(err: unknown): StatusBody {
  const body = (err as {body?: unknown}).body
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusBody
    } catch {
      return {message: body}
    }
  }
  return (body ?? {}) as StatusBody
}

export class Writer {
  private constructor(
    private readonly client: Client,
    readonly ctx: KubeContext,
    readonly namespace: string,
    /** Send every write with dryRun=All (the API server validates and admits, stores nothing). */
    readonly serverDryRun: boolean,
  ) {}

  static async create(ctx: KubeContext, namespace: string, serverDryRun: boolean): Promise<Writer> {
    return new Writer(await Client.connect(ctx), ctx, namespace, serverDryRun)
  }

  /** The request options with a Content-Type (the patch strategy). */
  private options(contentType: string): ReturnType<Client['k8s']['setHeaderOptions']> {
    const base = this.ctx.apiOptions as unknown as {middleware?: unknown[]}
    const header = this.client.k8s.setHeaderOptions('Content-Type', contentType as never) as unknown as {middleware?: unknown[]}
    return {middleware: [...(base.middleware ?? []), ...(header.middleware ?? [])], middlewareMergeStrategy: 'append'} as unknown as ReturnType<Client['k8s']['setHeaderOptions']>
  }

  private get dryRun(): string | undefined {
    return this.serverDryRun ? 'All' : undefined
  }

  /** The Service's managedFields (who owns the topology fields). */
  async serviceManagedFields(name: string): Promise<ManagedFieldsEntry[]> {
    try {
      const svc = await this.client.core.readNamespacedService({name, namespace: this.namespace}, this.client.options)
      return (svc.metadata?.managedFields ?? []).map((m) => ({manager: m.manager, operation: m.operation, fieldsV1: m.fieldsV1 as Record<string, unknown>}))
    } catch (e) {
      throw this.client.fail(e, `get services "${name}" in namespace "${this.namespace}"`)
    }
  }

  /** The Service, or null when it does not exist. */
  async getService(name: string): Promise<Service | null> {
    try {
      return this.client.wire(SERVICE, await this.client.core.readNamespacedService({name, namespace: this.namespace}, this.client.options))
    } catch (e) {
      if (apiStatusCode(e) === 404) return null
      throw this.client.fail(e, `get services "${name}" in namespace "${this.namespace}"`)
    }
  }

  /** Every EndpointSlice labelled with the Service's name (any manager). */
  async listSlices(service: string): Promise<EndpointSlice[]> {
    const labelSelector = `${LABEL_SERVICE_NAME}=${service}`
    const out = await this.client.list(`list endpointslices in namespace "${this.namespace}"`, ENDPOINT_SLICE, (q) =>
      this.client.discovery.listNamespacedEndpointSlice({namespace: this.namespace, labelSelector, ...q}, this.client.options),
    )
    return out.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
  }

  /**
   * One SelfSubjectAccessReview per check; throws FORBIDDEN naming the first missing
   * permission. Runs before any write.
   */
  async checkAccess(checks: AccessCheck[], objectName: string): Promise<void> {
    for (const c of checks) {
      let allowed = false
      let reason = ''
      try {
        const r = await this.client.authorization.createSelfSubjectAccessReview(
          {
            body: {
              apiVersion: 'authorization.k8s.io/v1',
              kind: 'SelfSubjectAccessReview',
              spec: {resourceAttributes: {namespace: this.namespace, verb: c.verb, group: c.group, resource: c.resource, name: objectName}},
            },
          },
          this.client.options,
        )
        allowed = r.status?.allowed === true
        reason = r.status?.reason ?? ''
      } catch (e) {
        throw this.client.fail(e, `check permissions (SelfSubjectAccessReview)`)
      }
      if (!allowed) {
        const res = c.group ? `${c.resource}.${c.group}` : c.resource
        throw new CliError(
          `forbidden: context "${this.ctx.contextName}"${this.ctx.userName ? ` (user "${this.ctx.userName}")` : ''} lacks permission "${c.verb} ${res}" in namespace "${this.namespace}", needed to ${c.why}${reason ? ` (${scrub(reason)})` : ''}; nothing was written`,
          ExitCode.FORBIDDEN,
        )
      }
    }
  }

  /** Server-side apply of a Service configuration with field manager kubectl-topology. */
  async applyService(name: string, body: Obj, force: boolean): Promise<Service> {
    try {
      const r = await this.client.core.patchNamespacedService(
        {name, namespace: this.namespace, body, fieldManager: FIELD_MANAGER, force: force || undefined, dryRun: this.dryRun},
        this.options(this.client.k8s.PatchStrategy.ServerSideApply),
      )
      return this.client.wire(SERVICE, r)
    } catch (e) {
      throw this.writeError(e, 'Service', name)
    }
  }

  /** JSON merge patch (RFC 7386) of a Service. */
  async mergePatchService(name: string, patch: Obj): Promise<Service> {
    try {
      const r = await this.client.core.patchNamespacedService(
        {name, namespace: this.namespace, body: patch, fieldManager: FIELD_MANAGER, dryRun: this.dryRun},
        this.options(this.client.k8s.PatchStrategy.MergePatch),
      )
      return this.client.wire(SERVICE, r)
    } catch (e) {
      throw this.writeError(e, 'Service', name)
    }
  }

  /** JSON patch (RFC 6902) of an EndpointSlice. */
  async patchSlice(name: string, ops: JsonPatchOp[]): Promise<EndpointSlice> {
    try {
      const r = await this.client.discovery.patchNamespacedEndpointSlice(
        {name, namespace: this.namespace, body: ops, fieldManager: FIELD_MANAGER, dryRun: this.dryRun},
        this.options(this.client.k8s.PatchStrategy.JsonPatch),
      )
      return this.client.wire(ENDPOINT_SLICE, r)
    } catch (e) {
      throw this.writeError(e, 'EndpointSlice', name)
    }
  }

  /** A failed write as one line: a precondition conflict is a ConflictError (retry); the rest a CliError. */
  private writeError(e: unknown, kind: 'Service' | 'EndpointSlice', name: string): Error {
    const code = apiStatusCode(e)
    const what = `${kind === 'Service' ? 'services' : 'endpointslices.discovery.k8s.io'} "${name}"`
    if (code === undefined) {
      const err = this.client.fail(e, `write ${what} in namespace "${this.namespace}"`)
      // Not even sent, or an error of ours (a credential plugin, a kubeconfig): nothing stored.
      // With dryRun=All nothing is stored whatever happened to the answer.
      if (notSent(e) || err.exitCode === ExitCode.KUBECONFIG || this.serverDryRun) return err
      return new UnknownOutcomeError(kind, name, err.message, e)
    }
    if (code >= 500 && !this.serverDryRun) return new UnknownOutcomeError(kind, name, this.client.fail(e, `write ${what} in namespace "${this.namespace}"`).message, e, code)
    const st = statusOf(e)
    const causes = st.details?.causes ?? []
    if (code === 409) {
      const fieldConflicts = causes.filter((c) => c.reason === 'FieldManagerConflict')
      if (fieldConflicts.length > 0) {
        const list = fieldConflicts.map((c) => `${c.field ?? '?'} (${c.message ?? 'conflict'})`).join(', ')
        return new CliError(
          `server-side apply conflict on ${what}: ${list}; another field manager set a different value. Re-run with --force-conflicts to take ownership of the field(s), or change them with the tool that owns them`,
          ExitCode.WRITE_FAILED,
          {cause: e},
        )
      }
      return new ConflictError(kind, name)
    }
    if (code === 422 || code === 400) {
      const fields = causes.filter((c) => c.field).map((c) => `${c.field}: ${c.message ?? c.reason ?? 'invalid'}`)
      const detail = fields.length > 0 ? fields.join('; ') : (st.message ?? 'invalid')
      return new CliError(scrub(`the API server rejected the write to ${what} (${st.reason ?? 'Invalid'}): ${detail}`), ExitCode.WRITE_FAILED, {cause: e})
    }
    if (code === 404) {
      return new CliError(`${what} not found in namespace "${this.namespace}": it was deleted since it was read`, ExitCode.WRITE_FAILED, {cause: e})
    }
    const err = this.client.fail(e, `write ${what} in namespace "${this.namespace}"`)
    return err.exitCode === ExitCode.FORBIDDEN ? err : new CliError(err.message, ExitCode.WRITE_FAILED, {cause: e})
  }
}

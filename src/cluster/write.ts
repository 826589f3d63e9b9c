// Every write apply and reset make to the API server, and the reads they need beyond
// readClusterState: the Service with its managedFields (who owns which field), the
// EndpointSlices of a Service, SelfSubjectAccessReviews. Writes carry a precondition:
// server-side apply with the resourceVersion read, JSON merge patches with
// metadata.resourceVersion, JSON patches that put back the resourceVersion read. A 409 from
// the precondition is a ConflictError, which the caller answers by re-reading and re-planning.

import {CliError, ExitCode} from '../errors.js'
import {FIELD_MANAGER, type JsonPatchOp, type ManagedFieldsEntry} from '../apply/plan.js'
import {LABEL_SERVICE_NAME, type EndpointSlice, type Service} from '../upstream/api/types.js'
import {apiStatusCode, scrub, toCliError, type ErrorContext} from './errors.js'
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

/** Serialises a client-node model to plain wire JSON (no undefined, dates as strings). */
function wire<T>(k8s: typeof import('./k8s.js'), obj: unknown, type: string, apiVersion: string, kind: string): T {
  const plain = JSON.parse(JSON.stringify(k8s.ObjectSerializer.serialize(obj, type, ''))) as Obj
  const meta = plain.metadata as Obj | undefined
  if (meta) {
    delete meta.managedFields
    for (const k of ['creationTimestamp', 'deletionTimestamp']) {
      if (typeof meta[k] === 'string') meta[k] = (meta[k] as string).replace(/\.000Z$/, 'Z')
    }
  }
  return {apiVersion, kind, ...plain} as T
}

export class Writer {
  private constructor(
    private readonly k8s: typeof import('./k8s.js'),
    readonly ctx: KubeContext,
    readonly namespace: string,
    /** Send every write with dryRun=All (the API server validates and admits, stores nothing). */
    readonly serverDryRun: boolean,
  ) {}

  static async create(ctx: KubeContext, namespace: string, serverDryRun: boolean): Promise<Writer> {
    return new Writer(await import('./k8s.js'), ctx, namespace, serverDryRun)
  }

  private get errCtx(): ErrorContext {
    const c: ErrorContext = {server: this.ctx.server, contextName: this.ctx.contextName, requestTimeoutMs: this.ctx.requestTimeoutMs}
    if (this.ctx.execCommand) c.execCommand = this.ctx.execCommand
    return c
  }

  private options(contentType?: string): ReturnType<typeof this.k8s.setHeaderOptions> {
    const base = this.ctx.apiOptions as unknown as {middleware?: unknown[]}
    if (!contentType) return this.ctx.apiOptions as ReturnType<typeof this.k8s.setHeaderOptions>
    const header = this.k8s.setHeaderOptions('Content-Type', contentType as never) as unknown as {middleware?: unknown[]}
    return {middleware: [...(base.middleware ?? []), ...(header.middleware ?? [])], middlewareMergeStrategy: 'append'} as unknown as ReturnType<typeof this.k8s.setHeaderOptions>
  }

  private get dryRun(): string | undefined {
    return this.serverDryRun ? 'All' : undefined
  }

  /** The Service's managedFields (who owns the topology fields). */
  async serviceManagedFields(name: string): Promise<ManagedFieldsEntry[]> {
    const core = this.ctx.kc.makeApiClient(this.k8s.CoreV1Api)
    try {
      const svc = await core.readNamespacedService({name, namespace: this.namespace}, this.ctx.apiOptions)
      return (svc.metadata?.managedFields ?? []).map((m) => ({manager: m.manager, operation: m.operation, fieldsV1: m.fieldsV1 as Record<string, unknown>}))
    } catch (e) {
      throw toCliError(e, `get services "${name}" in namespace "${this.namespace}"`, this.errCtx)
    }
  }

  /** The Service, or null when it does not exist. */
  async getService(name: string): Promise<Service | null> {
    const core = this.ctx.kc.makeApiClient(this.k8s.CoreV1Api)
    try {
      return wire<Service>(this.k8s, await core.readNamespacedService({name, namespace: this.namespace}, this.ctx.apiOptions), 'V1Service', 'v1', 'Service')
    } catch (e) {
      if (apiStatusCode(e) === 404) return null
      throw toCliError(e, `get services "${name}" in namespace "${this.namespace}"`, this.errCtx)
    }
  }

  /** Every EndpointSlice labelled with the Service's name (any manager). */
  async listSlices(service: string): Promise<EndpointSlice[]> {
    const disc = this.ctx.kc.makeApiClient(this.k8s.DiscoveryV1Api)
    const out: EndpointSlice[] = []
    let cont: string | undefined
    try {
      do {
        const res = await disc.listNamespacedEndpointSlice({namespace: this.namespace, labelSelector: `${LABEL_SERVICE_NAME}=${service}`, limit: 500, _continue: cont}, this.ctx.apiOptions)
        for (const s of res.items) out.push(wire<EndpointSlice>(this.k8s, s, 'V1EndpointSlice', 'discovery.k8s.io/v1', 'EndpointSlice'))
        cont = res.metadata?._continue || undefined
      } while (cont)
    } catch (e) {
      throw toCliError(e, `list endpointslices in namespace "${this.namespace}"`, this.errCtx)
    }
    return out.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
  }

  /**
   * One SelfSubjectAccessReview per check; throws FORBIDDEN naming the first missing
   * permission. Runs before any write.
   */
  async checkAccess(checks: AccessCheck[], objectName: string): Promise<void> {
    const authz = this.ctx.kc.makeApiClient(this.k8s.AuthorizationV1Api)
    for (const c of checks) {
      let allowed = false
      let reason = ''
      try {
        const r = await authz.createSelfSubjectAccessReview(
          {body: {apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {resourceAttributes: {namespace: this.namespace, verb: c.verb, group: c.group, resource: c.resource, name: objectName}}}},
          this.ctx.apiOptions,
        )
        allowed = r.status?.allowed === true
        reason = r.status?.reason ?? ''
      } catch (e) {
        throw toCliError(e, `check permissions (SelfSubjectAccessReview)`, this.errCtx)
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
    const core = this.ctx.kc.makeApiClient(this.k8s.CoreV1Api)
    try {
      const r = await core.patchNamespacedService(
        {name, namespace: this.namespace, body, fieldManager: FIELD_MANAGER, force: force || undefined, dryRun: this.dryRun},
        this.options(this.k8s.PatchStrategy.ServerSideApply),
      )
      return wire<Service>(this.k8s, r, 'V1Service', 'v1', 'Service')
    } catch (e) {
      throw this.writeError(e, 'Service', name)
    }
  }

  /** JSON merge patch (RFC 7386) of a Service. */
  async mergePatchService(name: string, patch: Obj): Promise<Service> {
    const core = this.ctx.kc.makeApiClient(this.k8s.CoreV1Api)
    try {
      const r = await core.patchNamespacedService(
        {name, namespace: this.namespace, body: patch, fieldManager: FIELD_MANAGER, dryRun: this.dryRun},
        this.options(this.k8s.PatchStrategy.MergePatch),
      )
      return wire<Service>(this.k8s, r, 'V1Service', 'v1', 'Service')
    } catch (e) {
      throw this.writeError(e, 'Service', name)
    }
  }

  /** JSON patch (RFC 6902) of an EndpointSlice. */
  async patchSlice(name: string, ops: JsonPatchOp[]): Promise<EndpointSlice> {
    const disc = this.ctx.kc.makeApiClient(this.k8s.DiscoveryV1Api)
    try {
      const r = await disc.patchNamespacedEndpointSlice(
        {name, namespace: this.namespace, body: ops, fieldManager: FIELD_MANAGER, dryRun: this.dryRun},
        this.options(this.k8s.PatchStrategy.JsonPatch),
      )
      return wire<EndpointSlice>(this.k8s, r, 'V1EndpointSlice', 'discovery.k8s.io/v1', 'EndpointSlice')
    } catch (e) {
      throw this.writeError(e, 'EndpointSlice', name)
    }
  }

  /** A failed write as one line: a precondition conflict is a ConflictError (retry); the rest a CliError. */
  private writeError(e: unknown, kind: 'Service' | 'EndpointSlice', name: string): Error {
    const code = apiStatusCode(e)
    const what = `${kind === 'Service' ? 'services' : 'endpointslices.discovery.k8s.io'} "${name}"`
    if (code === undefined) return toCliError(e, `write ${what} in namespace "${this.namespace}"`, this.errCtx)
    const st = statusOf(e)
    const causes = st.details?.causes ?? []
    if (code === 409) {
      const fieldConflicts = causes.filter((c) => c.reason === 'FieldManagerConflict')
      if (fieldConflicts.length > 0) {
        const list = fieldConflicts.map((c) => `${c.field ?? '?'} (${c.message ?? 'conflict'})`).join(', ')
        return new CliError(
          `server-side apply conflict on ${what}: ${list}; another field manager set a different value. Re-run with --force to take ownership of the field(s), or change them with the tool that owns them`,
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
    const err = toCliError(e, `write ${what} in namespace "${this.namespace}"`, this.errCtx)
    return err.exitCode === ExitCode.FORBIDDEN ? err : new CliError(err.message, ExitCode.WRITE_FAILED, {cause: e})
  }
}

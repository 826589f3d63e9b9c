// serve's HTTP decisions, pure: which exposition format an Accept header asks for, and what
// --listen HOST:PORT means.
import {CliError, ExitCode} from '../errors.js'

/** The default --listen: loopback only (a port not taken by the exporters Prometheus's port list names). */
export const DEFAULT_LISTEN = '127.0.0.1:9780'

/**
 * 'openmetrics' when the Accept header prefers OpenMetrics (application/openmetrics-text) at
 * least as much as the Prometheus text format, with a q above 0; else 'text' (the format every
 * scraper reads). Prometheus 2.x sends
 * "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*\/*;q=0.1".
 */
export function negotiate(accept: string | undefined): 'openmetrics' | 'text' {
  let om = 0
  let text = 0
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    const qp = params.find((p) => p.startsWith('q='))
    const q = qp === undefined ? 1 : Number(qp.slice(2))
    if (!Number.isFinite(q)) continue
    if (type === 'application/openmetrics-text') om = Math.max(om, q)
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*') text = Math.max(text, q)
  }
  return om > 0 && om >= text ? 'openmetrics' : 'text'
}

/** Whether an Accept-Encoding header takes gzip (gzip, x-gzip or *, with a q above 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  let gzip: number | undefined
  let any: number | undefined
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    const qp = params.find((p) => p.startsWith('q='))
    const q = qp === undefined ? 1 : Number(qp.slice(2))
    if (!Number.isFinite(q)) continue
    if (coding === 'gzip' || coding === 'x-gzip') gzip = Math.max(gzip ?? 0, q)
    else if (coding === '*') any = Math.max(any ?? 0, q)
  }
  return (gzip ?? any ?? 0) > 0
}

/** HOST:PORT, [IPv6]:PORT or :PORT (every address) into a host and a port (0: any free port). */
export function parseListen(value: string): {host: string; port: number} {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value)
  const port = m ? Number(m[3]) : Number.NaN
  if (!m || port > 65535) {
    throw new CliError(`--listen: invalid value ${JSON.stringify(value)}: expected HOST:PORT, e.g. ${DEFAULT_LISTEN}, [::1]:9780 or :9780 (every address)`, ExitCode.USAGE)
  }
  const host = m[1] ?? m[2] ?? ''
  return {host: host === '' ? '0.0.0.0' : host, port}
}

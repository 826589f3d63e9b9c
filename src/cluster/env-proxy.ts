// kubectl's proxy variables, for a cluster without `proxy-url`: client-go's transport uses Go's
// http.ProxyFromEnvironment (k8s.io/client-go rest/transport.go: `Proxy: http.ProxyFromEnvironment`
// unless the kubeconfig names a proxy-url), which is golang.org/x/net/http/httpproxy's
// `FromEnvironment().ProxyFunc()`. Ported here (ours, in cluster/: it reads the environment):
//   - `HTTPS_PROXY` for https:// servers, `HTTP_PROXY` for http:// ones, each also lower-case
//     (getEnvAny: the upper-case name wins when not empty); `NO_PROXY` / `no_proxy` likewise;
//   - a value without a scheme is taken as http:// (parseProxy);
//   - never proxied (useProxy): the host `localhost` and loopback IPs, whatever NO_PROXY says;
//   - NO_PROXY: comma-separated, lower-cased, trimmed; `*` matches everything; an IP or CIDR
//     matches IP hosts (`10.0.0.0/8`, `::1`, `[::1]:6443`, `10.1.2.3:6443`); a name matches
//     itself and its subdomains (`example.com`), a leading `.` or `*.` only subdomains
//     (`.example.com`); `:port` limits an entry to that port (the server's, 443/80 by default);
//   - REQUEST_METHOD set (CGI): HTTP_PROXY is refused for http:// servers (golang.org/s/cgihttpproxy).
// Not ported: IDNA conversion of names (ASCII names only; others compared as given).
import {isIP} from 'node:net'

type Env = Readonly<Record<string, string | undefined>>

const getEnvAny = (env: Env, ...names: string[]): string => {
  for (const n of names) {
    const v = env[n]
    if (v !== undefined && v !== '') return v
  }
  return ''
}

/** httpproxy parseProxy: a value without scheme and host is tried as http://VALUE. */
function parseProxy(value: string): string | undefined {
  if (value === '') return undefined
  try {
    const u = new URL(value)
    if (u.protocol !== '' && u.host !== '') return value
  } catch {
    // tried with http:// below
  }
  try {
    new URL(`http://${value}`)
    return `http://${value}`
  } catch {
    return undefined
  }
}

/** The bytes of an IPv4 or IPv6 address (IPv4 as ::ffff:a.b.c.d, as Go's 16-byte form). */
function ipBytes(ip: string): number[] | null {
  const v = isIP(ip)
  if (v === 4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ip.split('.').map(Number)]
  if (v !== 6) return null
  let s = ip
  const tail: number[] = []
  const v4 = s.match(/:(\d+\.\d+\.\d+\.\d+)$/)
  if (v4) {
    tail.push(...v4[1]!.split('.').map(Number))
    s = `${s.slice(0, v4.index!)}:0:0`
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, undefined]
  const words = (x: string | undefined) => (x === undefined || x === '' ? [] : x.split(':').map((w) => Number.parseInt(w, 16)))
  const h = words(head)
  const r = words(rest)
  const all = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill(0), ...r]
  const bytes = all.flatMap((w) => [w >> 8, w & 0xff])
  if (tail.length > 0) bytes.splice(12, 4, ...tail)
  return bytes
}

const isLoopback = (b: number[]): boolean => (b.slice(0, 12).join() === '0,0,0,0,0,0,0,0,0,0,255,255' && b[12] === 127) || b.join() === '0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1'

type Matcher = (host: string, port: string, ip: number[] | null) => boolean

function cidrMatcher(entry: string): Matcher | null {
  const slash = entry.indexOf('/')
  if (slash < 0) return null
  const base = ipBytes(entry.slice(0, slash))
  const bits = Number(entry.slice(slash + 1))
  if (base === null || !/^\d+$/.test(entry.slice(slash + 1))) return null
  const v4 = isIP(entry.slice(0, slash)) === 4
  const total = v4 ? bits + 96 : bits
  if (total > 128 || (v4 && bits > 32)) return null
  return (_h, _p, ip) => {
    if (ip === null) return false
    for (let i = 0; i < total; i++) {
      const mask = 0x80 >> (i % 8)
      if (((ip[i >> 3]! ^ base[i >> 3]!) & mask) !== 0) return false
    }
    return true
  }
}

/** httpproxy config.init: the NO_PROXY matchers (ip first, then domain, as useProxy asks them). */
function noProxyMatchers(noProxy: string): {ip: Matcher[]; domain: Matcher[]} {
  const ip: Matcher[] = []
  const domain: Matcher[] = []
  for (const raw of noProxy.split(',')) {
    const p = raw.trim().toLowerCase()
    if (p === '') continue
    if (p === '*') return {ip: [() => true], domain: [() => true]}
    const cidr = cidrMatcher(p)
    if (cidr) {
      ip.push(cidr)
      continue
    }
    let phost = p
    let pport = ''
    const hp = splitHostPort(p)
    if (hp !== null) {
      if (hp.host === '') continue
      phost = hp.host
      pport = hp.port
    }
    const pip = ipBytes(phost)
    if (pip !== null) {
      ip.push((_h, port, hostIp) => hostIp !== null && hostIp.join() === pip.join() && (pport === '' || pport === port))
      continue
    }
    if (phost === '') continue
    if (phost.startsWith('*.')) phost = phost.slice(1)
    const matchHost = !phost.startsWith('.')
    if (matchHost) phost = `.${phost}`
    const suffix = phost
    domain.push((host, port) => (host.endsWith(suffix) || (matchHost && host === suffix.slice(1))) && (pport === '' || pport === port))
  }
  return {ip, domain}
}

/** net.SplitHostPort, for "host:port" and "[v6]:port"; null when there is no port. */
function splitHostPort(s: string): {host: string; port: string} | null {
  if (s.startsWith('[')) {
    const end = s.indexOf(']')
    if (end < 0 || s[end + 1] !== ':') return null
    return {host: s.slice(1, end), port: s.slice(end + 2)}
  }
  const i = s.lastIndexOf(':')
  if (i < 0 || s.indexOf(':') !== i) return null
  return {host: s.slice(0, i), port: s.slice(i + 1)}
}

/**
 * http.ProxyFromEnvironment for the API server `server`: the proxy URL kubectl would use, or
 * undefined (no variable set, or the server is excluded: loopback, localhost, NO_PROXY).
 * `variable` names where the URL came from, for messages.
 */
export function proxyFromEnvironment(server: string, env: Env): {url: string; variable: string} | undefined {
  let u: URL
  try {
    u = new URL(server)
  } catch {
    return undefined
  }
  const https = u.protocol === 'https:'
  if (!https && u.protocol !== 'http:') return undefined
  const names = https ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy']
  const raw = getEnvAny(env, ...names)
  const proxy = parseProxy(raw)
  if (proxy === undefined) return undefined
  if (!https && (env.REQUEST_METHOD ?? '') !== '') return undefined
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname
  const port = u.port || (https ? '443' : '80')
  if (host === 'localhost') return undefined
  const ip = ipBytes(host)
  if (ip !== null && isLoopback(ip)) return undefined
  const m = noProxyMatchers(getEnvAny(env, 'NO_PROXY', 'no_proxy'))
  const h = host.toLowerCase()
  if (ip !== null && m.ip.some((f) => f(h, port, ip))) return undefined
  if (m.domain.some((f) => f(h, port, ip))) return undefined
  const variable = names.find((n) => env[n] === raw) ?? names[0]!
  return {url: proxy, variable}
}

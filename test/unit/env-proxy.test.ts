// kubectl's proxy variables (src/cluster/env-proxy.ts): the rules of golang.org/x/net/http/httpproxy
// (http.ProxyFromEnvironment, which client-go uses for a cluster without proxy-url), with cases
// after its proxy_test.go; and the kubeconfig load that picks them up (no connection is made).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {proxyFromEnvironment} from '../../src/cluster/env-proxy.js'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'

const P = 'http://proxy.corp:3128'
const url = (server: string, env: Record<string, string>) => proxyFromEnvironment(server, env)?.url

describe('http.ProxyFromEnvironment (httpproxy)', () => {
  it('HTTPS_PROXY for https:// servers, HTTP_PROXY for http:// ones; upper case wins; lower case works', () => {
    expect(url('https://api.corp:6443', {HTTPS_PROXY: P})).toBe(P)
    expect(url('https://api.corp:6443', {HTTP_PROXY: P})).toBeUndefined()
    expect(url('http://api.corp:8080', {HTTP_PROXY: P})).toBe(P)
    expect(url('https://api.corp:6443', {https_proxy: P})).toBe(P)
    expect(url('https://api.corp:6443', {HTTPS_PROXY: P, https_proxy: 'http://other:1'})).toBe(P)
    expect(url('https://api.corp:6443', {HTTPS_PROXY: '', https_proxy: 'http://other:1'})).toBe('http://other:1')
    expect(proxyFromEnvironment('https://api.corp:6443', {https_proxy: P})?.variable).toBe('https_proxy')
    expect(url('https://api.corp:6443', {})).toBeUndefined()
  })
  it('a value without a scheme is http://', () => {
    expect(url('https://api.corp', {HTTPS_PROXY: 'proxy.corp:3128'})).toBe('http://proxy.corp:3128')
  })
  it('localhost and loopback IPs are never proxied, whatever NO_PROXY says', () => {
    for (const s of ['https://localhost:6443', 'https://127.0.0.1:6443', 'https://127.1.2.3', 'https://[::1]:6443']) expect(url(s, {HTTPS_PROXY: P}), s).toBeUndefined()
    expect(url('https://localhost.corp:6443', {HTTPS_PROXY: P})).toBe(P)
  })
  it('NO_PROXY: names and their subdomains, ".name" only subdomains, "*.", ports, IPs, CIDRs, "*"', () => {
    const np = (noProxy: string, server: string) => url(server, {HTTPS_PROXY: P, NO_PROXY: noProxy}) === undefined
    expect(np('corp', 'https://api.corp')).toBe(true)
    expect(np('api.corp', 'https://api.corp')).toBe(true)
    expect(np('api.corp', 'https://x.api.corp')).toBe(true)
    expect(np('.api.corp', 'https://api.corp')).toBe(false)
    expect(np('.api.corp', 'https://x.api.corp')).toBe(true)
    expect(np('*.api.corp', 'https://x.api.corp')).toBe(true)
    expect(np('pi.corp', 'https://api.corp')).toBe(false)
    expect(np('api.corp:6443', 'https://api.corp:6443')).toBe(true)
    expect(np('api.corp:6443', 'https://api.corp')).toBe(false)
    expect(np('api.corp:443', 'https://api.corp')).toBe(true)
    expect(np(' API.CORP ', 'https://api.corp')).toBe(true)
    expect(np('10.0.0.0/8', 'https://10.1.2.3:6443')).toBe(true)
    expect(np('10.0.0.0/8', 'https://11.1.2.3:6443')).toBe(false)
    expect(np('10.1.2.3', 'https://10.1.2.3:6443')).toBe(true)
    expect(np('10.1.2.3:6443', 'https://10.1.2.3:6443')).toBe(true)
    expect(np('10.1.2.3:443', 'https://10.1.2.3:6443')).toBe(false)
    expect(np('2001:db8::/32', 'https://[2001:db8::5]:6443')).toBe(true)
    expect(np('[2001:db8::5]:6443', 'https://[2001:db8::5]:6443')).toBe(true)
    expect(np('10.0.0.0/8', 'https://api.corp')).toBe(false)
    expect(np('*', 'https://api.corp')).toBe(true)
    expect(np('other.corp,api.corp', 'https://api.corp')).toBe(true)
  })
  it('CGI (REQUEST_METHOD set): HTTP_PROXY is not used for http:// servers', () => {
    expect(url('http://api.corp', {HTTP_PROXY: P, REQUEST_METHOD: 'GET'})).toBeUndefined()
    expect(url('https://api.corp', {HTTPS_PROXY: P, REQUEST_METHOD: 'GET'})).toBe(P)
  })
})

describe('loadKubeConfig: a cluster without proxy-url takes HTTPS_PROXY (issue 23)', () => {
  const saved = {...process.env}
  afterEach(() => {
    for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']) {
      if (saved[k] === undefined) delete process.env[k]
      else process.env[k] = saved[k]
    }
  })
  const config = (cluster: Record<string, unknown>) => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kt-envproxy-')), 'config')
    fs.writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'a',
        clusters: [{name: 'k', cluster}],
        contexts: [{name: 'a', context: {cluster: 'k', user: 'u'}}],
        users: [{name: 'u', user: {token: 't'}}],
      }),
    )
    return file
  }
  it('HTTPS_PROXY is used (credentials never shown); proxy-url wins; NO_PROXY and loopback exclude', async () => {
    for (const k of ['HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) delete process.env[k]
    process.env.HTTPS_PROXY = 'http://bob:hunter2@proxy.corp:3128'
    expect((await loadKubeConfig({kubeconfig: config({server: 'https://api.corp:6443'})})).proxy).toBe('http://proxy.corp:3128')
    expect((await loadKubeConfig({kubeconfig: config({server: 'https://api.corp:6443', 'proxy-url': 'socks5://s.corp:1080'})})).proxy).toBe('socks5://s.corp:1080')
    expect((await loadKubeConfig({kubeconfig: config({server: 'https://127.0.0.1:6443'})})).proxy).toBeUndefined()
    process.env.NO_PROXY = '.corp'
    expect((await loadKubeConfig({kubeconfig: config({server: 'https://api.corp:6443'})})).proxy).toBeUndefined()
    process.env.HTTPS_PROXY = 'socks4://proxy.corp:1080'
    delete process.env.NO_PROXY
    await expect(loadKubeConfig({kubeconfig: config({server: 'https://api.corp:6443'})})).rejects.toThrow(
      'invalid proxy-url "socks4://proxy.corp:1080" for cluster "k" in the environment (HTTPS_PROXY): unsupported scheme "socks4", must be http, https, or socks5',
    )
  })
})

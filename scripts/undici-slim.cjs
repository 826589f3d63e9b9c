// undici as dist/k8s.cjs loads it (scripts/esbuild-k8s.mjs, slimUndici): what client-node and
// src/cluster/ use of it at once, the rest on first use.
//
// undici's index.js requires all of undici when it loads: fetch, WebSocket, EventSource, the
// cache stores, the mock agents, every interceptor (with node:zlib, node:sqlite and the web
// streams), and client-node's config.js imports it whole for Agent and ProxyAgent. A live read
// uses Agent and request() (src/cluster/http.ts), ProxyAgent behind some proxies; fetch() only
// client-node's Watch, health and log, which this tool does not send through (cluster/http.ts
// has its own watch). Here Agent, ProxyAgent and request() are undici's own modules, and fetch()
// loads undici's index.js (the same modules, one copy) when first called. Evaluating
// dist/k8s.cjs: about 47 -> 38 ms of CPU (docs/design.md "Reading a whole cluster (issue 23)",
// fourth round).
'use strict'

const Dispatcher = require('undici/lib/dispatcher/dispatcher')
const api = require('undici/lib/api')
const util = require('undici/lib/core/util')
const {InvalidArgumentError} = require('undici/lib/core/errors')
const {getGlobalDispatcher} = require('undici/lib/global')

// As undici's index.js: request(), stream(), … on every dispatcher.
Object.assign(Dispatcher.prototype, api)

module.exports.Agent = require('undici/lib/dispatcher/agent')
module.exports.ProxyAgent = require('undici/lib/dispatcher/proxy-agent')

// undici 8.12.4 index.js makeDispatcher, unchanged: request(url, opts) on opts.dispatcher.
function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts
      opts = null
    }

    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new InvalidArgumentError('invalid url')
    }

    if (opts != null && typeof opts !== 'object') {
      throw new InvalidArgumentError('invalid opts')
    }

    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new InvalidArgumentError('invalid opts.path')
      }

      let path = opts.path
      if (!opts.path.startsWith('/')) {
        path = `/${path}`
      }

      url = new URL(util.parseOrigin(url).origin + path)
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {}
      }

      url = util.parseURL(url)
    }

    const {agent, dispatcher = getGlobalDispatcher(), ...restOpts} = opts

    if (agent) {
      throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?')
    }

    return fn.call(
      dispatcher,
      {
        ...restOpts,
        origin: url.origin,
        path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: opts.method || (opts.body ? 'PUT' : 'GET'),
      },
      handler,
    )
  }
}

module.exports.request = makeDispatcher(api.request)

/** undici's fetch(), with undici's index.js loaded on the first call. */
module.exports.fetch = function fetch(init, options = undefined) {
  return require('undici').fetch(init, options)
}

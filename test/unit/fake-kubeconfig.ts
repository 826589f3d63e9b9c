// A kubeconfig for the tests' fake API servers on 127.0.0.1 (plain HTTP, a token user, context
// "fake"), written as YAML as kubectl writes it.
import fs from 'node:fs'
import type {AddressInfo} from 'node:net'
import type {Server} from 'node:http'
import {stringify as toYaml} from 'yaml'

export function writeFakeKubeconfig(file: string, server: Server, namespace?: string): string {
  fs.writeFileSync(
    file,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'fake',
      clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}}],
      contexts: [{name: 'fake', context: {cluster: 'c', user: 'u', ...(namespace === undefined ? {} : {namespace})}}],
      users: [{name: 'u', user: {token: 't'}}],
    }),
  )
  return file
}

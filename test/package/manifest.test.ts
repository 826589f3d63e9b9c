// krew-manifest.yaml: the structure krew (and krew-index's validate-krew-manifest) expects,
// and that `npm run package` wrote the archives' real sha256.
import {createHash} from 'node:crypto'
import {existsSync, readFileSync} from 'node:fs'
import {basename, join} from 'node:path'
import {Ajv} from 'ajv'
import {describe, expect, it} from 'vitest'
import {archivePath, PKG, readManifest, ROOT} from './artifacts.js'

// krew's v1alpha2 Plugin (krew: pkg/index/types.go; validation: pkg/index/validation).
const GOOS = ['linux', 'darwin', 'windows']
const GOARCH = ['amd64', 'arm64', '386', 'arm', 'ppc64le', 's390x']
const schema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: {const: 'krew.googlecontainertools.github.com/v1alpha2'},
    kind: {const: 'Plugin'},
    metadata: {type: 'object', required: ['name'], properties: {name: {const: 'topology'}}},
    spec: {
      type: 'object',
      required: ['version', 'shortDescription', 'description', 'platforms'],
      additionalProperties: false,
      properties: {
        version: {type: 'string', pattern: '^v\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?$'},
        homepage: {type: 'string', pattern: '^https://'},
        shortDescription: {type: 'string', minLength: 10, maxLength: 70},
        description: {type: 'string', minLength: 50},
        caveats: {type: 'string'},
        platforms: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['selector', 'uri', 'sha256', 'bin', 'files'],
            additionalProperties: false,
            properties: {
              selector: {
                type: 'object',
                required: ['matchLabels'],
                properties: {
                  matchLabels: {
                    type: 'object',
                    required: ['os', 'arch'],
                    additionalProperties: false,
                    properties: {os: {enum: GOOS}, arch: {enum: GOARCH}},
                  },
                },
              },
              uri: {type: 'string', pattern: '^https://.+\\.(tar\\.gz|zip)$'},
              sha256: {type: 'string', pattern: '^[0-9a-f]{64}$'},
              bin: {type: 'string', minLength: 1},
              files: {
                type: 'array',
                minItems: 1,
                items: {type: 'object', required: ['from', 'to'], additionalProperties: false, properties: {from: {type: 'string'}, to: {type: 'string'}}},
              },
            },
          },
        },
      },
    },
  },
}

describe('krew-manifest.yaml', () => {
  const manifest = readManifest()

  it('is a valid krew v1alpha2 Plugin', () => {
    const validate = new Ajv({allErrors: true}).compile(schema)
    const ok = validate(manifest)
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([])
    expect(ok).toBe(true)
  })

  it('is also at plugins/topology.yaml, where krew looks in an index repository', () => {
    expect(readFileSync(join(ROOT, 'plugins', 'topology.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'krew-manifest.yaml'), 'utf8'))
  })

  // validate-krew-manifest (krew-index's CI) warns when a line with spaces in it is longer
  // than 80 characters (description, caveats) or 70 (shortDescription): krew prints them as is.
  it('keeps description, caveats and shortDescription lines as short as krew-index asks', () => {
    const tooLong = (text: string | undefined, max: number) => (text ?? '').split('\n').filter((l) => l.length > max && l.trim().includes(' '))
    expect(tooLong(manifest.spec.description, 80)).toEqual([])
    expect(tooLong(manifest.spec.caveats, 80)).toEqual([])
    expect(tooLong(manifest.spec.shortDescription, 70)).toEqual([])
  })

  it('carries the package version, v-prefixed', () => {
    expect(manifest.spec.version).toBe(`v${PKG.version}`)
  })

  it('tells users about completion and the RBAC apply needs', () => {
    const caveats = manifest.spec.caveats ?? ''
    expect(caveats).toContain('kubectl_complete-topology')
    expect(caveats).toMatch(/apply/)
    expect(caveats).toMatch(/patch/)
    expect(caveats).toMatch(/list/)
  })

  it('has one platform per os/arch, each with a release uri, LICENSE and the right bin', () => {
    const seen = new Set<string>()
    for (const p of manifest.spec.platforms) {
      const {os, arch} = p.selector.matchLabels!
      const key = `${os}/${arch}`
      expect(seen.has(key), `two platforms select ${key}`).toBe(false)
      seen.add(key)
      expect(basename(p.uri)).toBe(`kubectl-topology_${PKG.version}_${os}_${arch}.tar.gz`)
      expect(p.uri).toContain(`/releases/download/v${PKG.version}/`)
      expect(p.bin).toBe(os === 'windows' ? 'kubectl-topology.exe' : 'kubectl-topology')
      const from = p.files!.map((f) => f.from)
      expect(from).toContain('LICENSE')
      expect(from).toContain(p.bin)
      if (os !== 'windows') expect(from).toContain('kubectl_complete-topology')
    }
    expect(seen).toContain('linux/amd64')
  })

  it('holds the sha256 of every archive npm run package built', () => {
    let checked = 0
    for (const p of manifest.spec.platforms) {
      const {os, arch} = p.selector.matchLabels!
      const file = archivePath(os!, arch!)
      if (!existsSync(file)) continue
      expect(createHash('sha256').update(readFileSync(file)).digest('hex'), `sha256 of ${basename(file)}`).toBe(p.sha256)
      checked++
    }
    // CI runs `npm run package` first: at least this machine's archive must be there.
    expect(checked, 'no archive in dist/: run `npm run package` first').toBeGreaterThan(0)
  })
})

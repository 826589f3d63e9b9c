// Version parsing and feature-gate defaults per version.
// Gate history: kubernetes/kubernetes pkg/features/kube_features.go (TopologyAwareHints,
// ServiceTrafficDistribution, PreferSameTrafficDistribution); see src/upstream/features.ts.
import {describe, expect, it} from 'vitest'
import {NEWEST_KNOWN, OLDEST_SUPPORTED, atLeast, compareVersions, features, formatVersion, parseVersion} from '../../src/upstream/features.js'

describe('parseVersion', () => {
  it.each([
    ['1.36.3', 1, 36],
    ['v1.31.0-eks-abc', 1, 31],
    ['1.30+', 1, 30],
    ['v1.29.4+k3s1', 1, 29],
    ['v1.30.5-gke.1014001', 1, 30],
    ['1.33', 1, 33],
    ['  v1.34.1  ', 1, 34],
    ['1.28.0-rc.1', 1, 28],
  ])('%s', (s, major, minor) => {
    expect(parseVersion(s)).toEqual({major, minor})
  })

  it.each(['', 'latest', '1', 'v1', '1.x', 'one.two', '1..3', 'v1.31a', '1.31.0 extra'])('rejects %j', (s) => {
    expect(() => parseVersion(s)).toThrow(/invalid Kubernetes version/)
  })
})

describe('compare helpers', () => {
  it('orders by major then minor', () => {
    expect(compareVersions({major: 1, minor: 30}, {major: 1, minor: 31})).toBeLessThan(0)
    expect(compareVersions({major: 2, minor: 0}, {major: 1, minor: 99})).toBeGreaterThan(0)
    expect(atLeast({major: 1, minor: 34}, 1, 34)).toBe(true)
    expect(formatVersion(NEWEST_KNOWN)).toBe('1.37')
    expect(formatVersion(OLDEST_SUPPORTED)).toBe('1.28')
  })
})

describe('features', () => {
  // [version, trafficDistributionField, preferSame, kubeProxyRequiresAnnotation, emptyZoneHint]
  const table: [string, boolean, boolean, boolean, boolean][] = [
    ['1.28.5', false, false, true, true],
    ['1.29.0', false, false, true, true],
    ['1.30.2', false, false, true, true], // ServiceTrafficDistribution alpha, default off
    ['1.31.0', true, false, false, true], // beta, on by default
    ['1.32.1', true, false, false, true],
    ['1.33.0', true, false, false, false], // PreferSame alpha (off); "" zone hints stopped
    ['1.34.0', true, true, false, false], // PreferSame beta (on)
    ['1.35.0', true, true, false, false], // GA
    ['1.36.3', true, true, false, false], // gates removed
    ['1.37.0', true, true, false, false],
  ]
  it.each(table)('%s', (v, td, ps, kp, ez) => {
    const f = features(v)
    expect(f.trafficDistributionField).toBe(td)
    expect(f.preferSameTrafficDistribution).toBe(ps)
    expect(f.kubeProxyRequiresAnnotation).toBe(kp)
    expect(f.trafficDistEmptyZoneHint).toBe(ez)
    expect(f.topologyAwareHints).toBe(true)
    expect(f.warning).toBeUndefined()
  })

  it('clamps older versions to 1.28 behaviour with a warning', () => {
    const f = features('v1.26.3')
    expect(f.version).toEqual({major: 1, minor: 28})
    expect(f.requested).toEqual({major: 1, minor: 26})
    expect(f.warning).toMatch(/1\.26 is older than .*1\.28/)
    expect(f.trafficDistributionField).toBe(false)
    expect(f.kubeProxyRequiresAnnotation).toBe(true)
  })

  it('uses the newest behaviour for newer versions, with a warning', () => {
    const f = features('1.40.0')
    expect(f.version).toEqual(NEWEST_KNOWN)
    expect(f.requested).toEqual({major: 1, minor: 40})
    expect(f.warning).toMatch(/newer than/)
    expect(f.preferSameTrafficDistribution).toBe(true)
  })

  it('defaults to the newest behaviour when no version is known', () => {
    const f = features()
    expect(f.version).toEqual(NEWEST_KNOWN)
    expect(f.warning).toBeUndefined()
  })

  it('accepts a parsed version object', () => {
    expect(features({major: 1, minor: 33}).trafficDistEmptyZoneHint).toBe(false)
  })

  it('throws a clear error for unparseable versions', () => {
    expect(() => features('banana')).toThrow(/invalid Kubernetes version "banana"/)
  })
})

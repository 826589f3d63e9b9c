// A seeded pseudo-random generator as a pure function (mulberry32): the same seed gives the
// same sequence on every machine. No Math.random, no clock.

/** One step: returns [a float in [0, 1), the next state]. */
export function prngStep(state: number): [number, number] {
  const next = (state + 0x6d2b79f5) | 0
  let t = next
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next]
}

/** An integer in [lo, hi] (inclusive) and the next state. */
export function prngInt(state: number, lo: number, hi: number): [number, number] {
  const [u, next] = prngStep(state)
  return [lo + Math.floor(u * (hi - lo + 1)), next]
}

/** A seed from any string or number (FNV-1a over the text). */
export function seedFrom(seed: string | number): number {
  const text = String(seed)
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h | 0
}

/**
 * An array of `n` zeros. `new Array(n).fill(0)` is about three times slower than this loop on
 * Node 26 for the short arrays a dataset row needs (a few to a few dozen entries), and `simulate
 * --dataset` makes several per strategy and row (docs/design.md, "simulate --dataset throughput").
 */
export function zeros(n: number): number[] {
  const a = new Array<number>(n)
  for (let i = 0; i < n; i++) a[i] = 0
  return a
}

/**
 * @module test/helpers/seeded
 * A small seeded generator (mulberry32): the same seed gives the same numbers
 * on every machine, so a failing kill point or payload comes back by its seed.
 */

/** Numbers in [0, 1) from `seed`, the same sequence every time. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

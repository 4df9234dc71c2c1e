// One seeded generator for every randomised test (fuzzers, the conformance test's SID channels), so a
// failing run repeats exactly from its seed on any machine.
export type Rng = () => number;

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

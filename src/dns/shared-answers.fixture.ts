// The keys and answers shared-answers.test.ts and its threads (shared-answers.hammer.ts) store: each
// answer's length and bytes follow from its key, so a reader can tell a torn or foreign one.

/** The wire name of key `k`: k<k>.example. */
export function keyWireOf(k: number): Uint8Array {
  const label = `k${k}`;
  return Uint8Array.from([label.length, ...Buffer.from(label), 7, ...Buffer.from("example"), 0]);
}

/** Key `k`'s answer: 20 to 419 bytes, each a function of k and its place. */
export function answerOf(k: number): Uint8Array {
  return Uint8Array.from({ length: 20 + ((k * 37) % 400) }, (_v, j) => (k * 13 + j * 7) & 0xff);
}

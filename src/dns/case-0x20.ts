// The 0x20 defence (draft-vixie-dnsext-dns0x20): a query leaves with its name's letters in random case,
// and an answer counts only if it echoes them. Before the answer reaches the client, every copy of the
// randomised name in it goes back to the client's own case: the question, and owner names an upstream
// wrote out in full (with compression they point at the question; unbound, dnsmasq and Knot write the
// first answer's owner uncompressed at times), so no client and no cache entry sees our random letters.
import { randomU16 } from "./random.ts";

export const EXACT = 0,
  CASE_LOST = 1,
  MISMATCH = 2;

/** How the answer's question compares with the one sent: byte for byte, only in letter case, or not at all. */
export function questionMatch(a: Uint8Array, sent: Uint8Array, end: number): number {
  if (a.length < end || a[4] !== 0 || a[5] !== 1) return MISMATCH;
  let result = EXACT;
  for (let i = 12; i < end; i++) {
    const x = a[i]!,
      y = sent[i]!;
    if (x === y) continue;
    // label length bytes are ≤ 63, so a difference of case can only be between letters
    if ((x | 0x20) !== (y | 0x20) || (x | 0x20) < 97 || (x | 0x20) > 122) return MISMATCH;
    result = CASE_LOST;
  }
  return result;
}

/** Flips the case of each letter of the question name at random (the name ends 4 bytes before `end`). */
export function randomCase(msg: Uint8Array, end: number): void {
  let bits = 0,
    left = 0;
  for (let i = 12; i < end - 4; i++) {
    const c = msg[i]! | 0x20;
    if (c < 97 || c > 122) continue;
    if (left === 0) {
      bits = randomU16();
      left = 16;
    }
    msg[i] = bits & 1 ? c & ~0x20 : c;
    bits >>= 1;
    left--;
  }
}

/**
 * Writes the client's question (`query`, up to `end`) over the answer's, and over each full copy of the
 * name as it was `sent` (random case, root label included) further on. A copy is only replaced where it
 * starts at a label boundary the walk cannot know, so it is matched byte for byte with its length bytes,
 * which a name in another case or another name cannot match.
 */
export function restoreCase(a: Uint8Array, sent: Uint8Array, query: Uint8Array, end: number): void {
  for (let i = 12; i < end; i++) a[i] = query[i]!;
  const nameEnd = end - 4;
  const len = nameEnd - 12;
  // the root name (".") has no letters; a name of one label with no letters changes nothing either
  if (len <= 1) return;
  const first = sent[12]!;
  for (let i = end; i + len <= a.length; i++) {
    if (a[i] !== first) continue;
    let j = 1;
    while (j < len && a[i + j] === sent[12 + j]) j++;
    if (j < len) continue;
    for (let k = 0; k < len; k++) a[i + k] = query[12 + k]!;
    i += len - 1;
  }
}

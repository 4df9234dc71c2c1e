// A question's cache key as bytes, and a 53-bit hash of them that keys the cache's Map. A number is no
// cell for the collector, and no string is made per lookup: a string key cost each query two (the
// name joined to its suffix, then flattened for the Map) and each cached answer one more cell. The
// entry keeps the key's bytes (cache-entry.ts), so two keys that share a hash are told apart: the
// lookup misses, and the answer stored then replaces the other.

/** The key: the name's lowercase wire form (≤ 255 bytes), type, class, the DO/CD/EDNS bits, the group's upstreams. */
const KEY = new Uint8Array(255 + 7);

/** The bytes writeKey() wrote last (read them before the next call). */
export const keyBytes: Uint8Array = KEY;

/**
 * Writes the key of a question into keyBytes and returns its length. `group`: the index of the
 * group's own upstream list in the cache's table (0 for dns.upstreams), so one group's answers never
 * reach another.
 */
export function writeKey(
  wire: Uint8Array,
  qtype: number,
  qclass: number,
  dnssecOk: boolean,
  cd: boolean,
  edns: boolean,
  group: number,
): number {
  const n = Math.min(wire.length, 255);
  for (let i = 0; i < n; i++) KEY[i] = wire[i]!;
  KEY[n] = qtype >> 8;
  KEY[n + 1] = qtype & 0xff;
  KEY[n + 2] = qclass >> 8;
  KEY[n + 3] = qclass & 0xff;
  KEY[n + 4] = (dnssecOk ? 1 : 0) | (cd ? 2 : 0) | (edns ? 4 : 0);
  KEY[n + 5] = group >> 8;
  KEY[n + 6] = group & 0xff;
  return n + 7;
}

/** A 53-bit hash of keyBytes[0, len): two 32-bit multiplicative hashes, one whole and 21 bits of the other. */
export function keyHash(len: number): number {
  let a = 0x811c9dc5,
    b = 0x9e3779b9;
  for (let i = 0; i < len; i++) {
    const c = KEY[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 2097152 + (b >>> 11);
}

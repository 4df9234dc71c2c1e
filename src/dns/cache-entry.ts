// One cached answer packed into one buffer: its fields, its key's bytes (cache-key.ts), the answer's
// bytes and where its TTLs lie. The collector then sees one cell an entry (the cache's Map is keyed
// by a number) instead of six (an object, the answer, an array of TTL positions, their backing store,
// the key string, the upstream's and the chain's references),
// and every collection of the DNS thread's heap marks them again: with 100,000 answers cached its eden
// pauses were 4.3 ms at the median against 2.3 with 100; packed they went from 3.7-7.0 to 3.3-3.8 ms,
// and with the number key to 2.5-3.0 (the mix at 10k QPS, bench/mix/gclog.ts on a BUN_JSC_logGC=1
// log). The CNAME chain, which few answers have, stays an array beside the cache (cache.ts).
import { setU16, setU32 } from "./reply.ts";
import { getU16, getU32 } from "./wire.ts";

// the header: stored at (ms, float64), TTL (s), reply type, an upstream's own block status (0: none),
// a refresh running, the DNSSEC verdict, the upstream's index, the answer's length, the TTL count,
// the key's length; then the key, the answer and the TTL offsets
const STORED_AT = 0,
  TTL = 8,
  REPLY = 12,
  BLOCKED = 13,
  REFRESHING = 14,
  DNSSEC = 15,
  UPSTREAM = 16,
  LENGTH = 18,
  TTLS = 20,
  KEY_LENGTH = 22,
  KEY = 24;

/** The upstream index of an answer without one. */
export const NO_UPSTREAM = 0xffff;

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);

export interface EntryFields {
  /** Date.now() when stored */
  storedAt: number;
  /** seconds the answer is fresh */
  ttl: number;
  reply: number;
  /** an upstream's own block (EXTERNAL_BLOCKED_*), which every hit shows again; null: none */
  upstreamBlocked: number | null;
  dnssec: number;
  /** the upstream's index in the cache's table of names, NO_UPSTREAM for none */
  upstream: number;
}

/** The bytes packEntry() makes of these: the header, the key, the answer and two per TTL position. */
export const entryLength = (answerLength: number, ttls: number, keyLength: number): number =>
  KEY + keyLength + answerLength + 2 * ttls;

/**
 * `answer` (at most 65535 bytes, as any DNS message) with its fields, its key (`key`'s first `keyLength`
 * bytes) and its TTL positions, in one buffer.
 */
export function packEntry(
  answer: Uint8Array,
  ttlAts: readonly number[],
  f: EntryFields,
  key: Uint8Array,
  keyLength: number,
): Uint8Array {
  const e = new Uint8Array(entryLength(answer.length, ttlAts.length, keyLength));
  writeEntry(e, 0, answer, ttlAts, f, key, keyLength);
  return e;
}

/**
 * packEntry() into `e` from `at` (the shared cache's slot, shared-answers.ts): entryLength() bytes.
 * Byte by byte: `e` may lie in shared memory, where a view of it per store would be garbage.
 */
export function writeEntry(
  e: Uint8Array,
  at: number,
  answer: Uint8Array,
  ttlAts: readonly number[],
  f: EntryFields,
  key: Uint8Array,
  keyLength: number,
): void {
  const start = at + KEY + keyLength;
  float[0] = f.storedAt;
  for (let i = 0; i < 8; i++) e[at + STORED_AT + i] = floatBytes[i]!;
  setU32(e, at + TTL, f.ttl);
  e[at + REPLY] = f.reply;
  e[at + BLOCKED] = f.upstreamBlocked ?? 0;
  e[at + REFRESHING] = 0;
  e[at + DNSSEC] = f.dnssec;
  setU16(e, at + UPSTREAM, f.upstream);
  setU16(e, at + LENGTH, answer.length);
  setU16(e, at + TTLS, ttlAts.length);
  setU16(e, at + KEY_LENGTH, keyLength);
  for (let i = 0; i < keyLength; i++) e[at + KEY + i] = key[i]!;
  for (let i = 0; i < answer.length; i++) e[start + i] = answer[i]!;
  for (let k = 0, o = start + answer.length; k < ttlAts.length; k++, o += 2) setU16(e, o, ttlAts[k]!);
}

/** Whether the entry's key is `key`'s first `keyLength` bytes. */
export function hasKey(e: Uint8Array, key: Uint8Array, keyLength: number): boolean {
  if (getU16(e, KEY_LENGTH) !== keyLength) return false;
  for (let i = 0; i < keyLength; i++) if (e[KEY + i] !== key[i]) return false;
  return true;
}

export function storedAt(e: Uint8Array): number {
  for (let i = 0; i < 8; i++) floatBytes[i] = e[STORED_AT + i]!;
  return float[0]!;
}
export const ttlOf = (e: Uint8Array): number => getU32(e, TTL);
export const replyOf = (e: Uint8Array): number => e[REPLY]!;
export const upstreamBlockedOf = (e: Uint8Array): number | null => e[BLOCKED] || null;
export const dnssecOf = (e: Uint8Array): number => e[DNSSEC]!;
export const upstreamOf = (e: Uint8Array): number => getU16(e, UPSTREAM);
export const refreshing = (e: Uint8Array): boolean => e[REFRESHING] === 1;
export function setRefreshing(e: Uint8Array, on: boolean): void {
  e[REFRESHING] = on ? 1 : 0;
}

/** Where the answer lies in the entry: [start, end). */
export const answerStart = (e: Uint8Array): number => KEY + getU16(e, KEY_LENGTH);
export const answerEnd = (e: Uint8Array): number => answerStart(e) + getU16(e, LENGTH);

/** How many TTLs the answer has, and the offset in the answer of the k-th. */
export const ttlCount = (e: Uint8Array): number => getU16(e, TTLS);
export const ttlAt = (e: Uint8Array, k: number): number => getU16(e, answerEnd(e) + 2 * k);

// The queries this thread has sent to upstreams and not yet given up on, to know one when it comes
// back: an upstream that is Moat itself (its own address and DNS port, directly or through a name or
// another forwarder) hands each forwarded query to Moat's listener again, which would forward it
// again, about 32,000 times for one client query with the rate limit off. A query Moat sent carries
// an ID drawn from a CSPRNG and, where 0x20 is on, its name in random case (upstream.ts), so a
// query that arrives with the same ID and the same question bytes, in the same case, is that query.
// Looked up by ID first (a number), so a query that is not ours costs one typed-array read.
// Kept in fixed typed arrays and one byte ring, so noting a forwarded query allocates nothing (an
// object, a view and a list per query before, and a sweep of them: ~5% of the DNS thread's CPU
// in bench/mix's throughput run). A query that loops is back within milliseconds: the newest
// MAX_KEPT queries (and their questions' bytes, RING_BYTES) are enough at any rate.

/**
 * A query that loops is back within milliseconds (or after a slow forwarder's hop); kept a little longer
 * than the forwarder waits for an answer (1.5 s), so the entries of a busy resolver stay few.
 */
const KEEP_MS = 2_000;
/** queries kept at most (2 s at 16k QPS, 1 s at 32k); a power of two */
const MAX_KEPT = 1 << 15;
/** bytes of their questions kept at most (a question is 17 to 271 bytes, ~30 in practice) */
const RING_BYTES = 1 << 20;
// `&` rather than `%` (a float modulo): ToInt32 keeps a number's low 32 bits, so for the powers of two above it is the same up to 2^53
const SLOT_MASK = MAX_KEPT - 1;
const RING_MASK = RING_BYTES - 1;

// A query is named by its sequence number + 1 (0: none), so zeroed arrays hold nothing and need no fill.
/** the newest query with each ID */
const newestById = new Float64Array(65536);
/** per slot (sequence % MAX_KEPT): the query it holds, the previous one with the same ID, when it expires, its upstream */
const slotRef = new Float64Array(MAX_KEPT);
const prevSameId = new Float64Array(MAX_KEPT);
const until = new Float64Array(MAX_KEPT);
const upstreamOf: string[] = new Array<string>(MAX_KEPT).fill("");
/** where its question (from byte 12 up to its end) begins in the ring, counted over all bytes ever written, and its length */
const questionAt = new Float64Array(MAX_KEPT);
const questionLen = new Int32Array(MAX_KEPT);
const ring = new Uint8Array(RING_BYTES);
let written = 0;
let noted = 0;

/** Notes a query as it leaves for `upstream` at `now` (performance.now()): `msg` as sent, `end` just past its question. */
export function noteSent(msg: Uint8Array, end: number, upstream: string, now: number): void {
  const id = (msg[0]! << 8) | msg[1]!;
  const ref = ++noted;
  const slot = ref & SLOT_MASK;
  slotRef[slot] = ref;
  prevSameId[slot] = newestById[id]!;
  newestById[id] = ref;
  until[slot] = now + KEEP_MS;
  upstreamOf[slot] = upstream;
  questionAt[slot] = written;
  questionLen[slot] = end - 12;
  for (let i = 12; i < end; i++) ring[written++ & RING_MASK] = msg[i]!;
}

/** The upstream a query arriving at Moat's listener was sent to by this thread, or null when it is not one of ours. */
export function sentTo(buf: Uint8Array, end: number): string | null {
  if (buf.length < end) return null;
  let ref = newestById[(buf[0]! << 8) | buf[1]!]!;
  // newest first, so the walk stops at the first written over; the clock is read only for a match
  // (performance.now() for every query was 1% of the CPU profile: most IDs name some old query)
  while (ref > 0) {
    const slot = ref & SLOT_MASK;
    if (slotRef[slot] !== ref) return null;
    const at = questionAt[slot]!;
    if (written - at > RING_BYTES) return null;
    if (questionLen[slot] === end - 12 && sameBytes(buf, end, at))
      return until[slot]! > performance.now() ? upstreamOf[slot]! : null;
    ref = prevSameId[slot]!;
  }
  return null;
}

function sameBytes(buf: Uint8Array, end: number, at: number): boolean {
  for (let i = 12, r = at; i < end; i++, r++) if (ring[r & RING_MASK] !== buf[i]) return false;
  return true;
}

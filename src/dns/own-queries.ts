// The queries this thread has sent to upstreams and not yet given up on, to know one when it comes
// back: an upstream that is Moat itself (its own address and DNS port, directly or through a name or
// another forwarder) hands each forwarded query to Moat's listener again, which would forward it
// again, about 32,000 times for one client query with the rate limit off. A query Moat sent carries
// an ID drawn from a CSPRNG and, where 0x20 is on, its name in random case (upstream.ts), so a
// query that arrives with the same ID and the same question bytes, in the same case, is that query.
// Looked up by ID first (a number), so a query that is not ours costs one Map lookup.

interface Sent {
  /** the query as sent up to the end of its question: ID, header, name (in the case sent), type and class */
  question: Uint8Array;
  upstream: string;
  /** performance.now() after which the entry is no longer kept */
  until: number;
}

/**
 * A query that loops is back within milliseconds (or after a slow forwarder's hop); kept a little longer
 * than the forwarder waits for an answer (1.5 s), so the entries of a busy resolver stay few.
 */
const KEEP_MS = 2_000;
const byId = new Map<number, Sent[]>();
/** every entry in the order noted, which is the order they expire in: a sweep stops at the first live one */
let order: Sent[] = [];
let head = 0;

function sweep(now: number): void {
  for (; head < order.length; head++) {
    const s = order[head]!;
    if (s.until > now) break;
    const id = (s.question[0]! << 8) | s.question[1]!;
    const list = byId.get(id)!;
    if (list.length === 1) byId.delete(id);
    else list.splice(list.indexOf(s), 1);
  }
  if (head > 1024 && head * 2 > order.length) {
    order = order.slice(head); // the swept front goes, once it is most of the array
    head = 0;
  }
}

/** Notes a query as it leaves for `upstream` (`msg` as sent, `end` just past its question). */
export function noteSent(msg: Uint8Array, end: number, upstream: string): void {
  const now = performance.now();
  sweep(now);
  const id = (msg[0]! << 8) | msg[1]!;
  const entry = { question: msg.subarray(0, end), upstream, until: now + KEEP_MS };
  order.push(entry);
  const list = byId.get(id);
  if (list) list.push(entry);
  else byId.set(id, [entry]);
}

/** The upstream a query arriving at Moat's listener was sent to by this thread, or null when it is not one of ours. */
export function sentTo(buf: Uint8Array, end: number): string | null {
  if (byId.size === 0 || buf.length < end) return null;
  const list = byId.get((buf[0]! << 8) | buf[1]!);
  if (!list) return null;
  const now = performance.now();
  outer: for (const s of list) {
    if (s.until <= now || s.question.length !== end) continue;
    for (let i = 12; i < end; i++) if (s.question[i] !== buf[i]) continue outer;
    return s.upstream;
  }
  return null;
}

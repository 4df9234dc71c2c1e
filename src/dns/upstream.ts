// One upstream server over UDP, hardened against off-path spoofing as RFC 5452 asks. Every query
// leaves with an ID from the CSPRNG over the full 16 bits, from a port drawn from the CSPRNG over the
// kernel's ephemeral range (source-port.ts), with the name's letters in random case (0x20,
// draft-vixie-dnsext-dns0x20). An answer counts only when it arrives on the socket its query left from
// (the sockets are connected: the kernel drops datagrams from any other address or port), with that
// query's ID and its question byte for byte (RFC 5452 §9.1). A spoof that gets any of these wrong is
// dropped and the real answer is still awaited. An upstream that does not echo the letter case gets
// the query again in the client's case, and after CASE_STRIKES such answers in a row, plain queries
// for a while.
//
// The sockets come from a pool per upstream (upstream-socket.ts): a socket costs about a dozen system
// calls and most of a cold recursive lookup's CPU (socket, Bun's setsockopts, bind, connect, epoll,
// close), where a pooled one's queries go out in one sendmmsg per event-loop turn. The pool grows by one
// socket per query up to POOL, so a quiet home, whose queries come further apart than AGE_MS, still
// sends each from a port of its own; a busy one picks one of POOL sockets at random (the CSPRNG) for
// each query. A socket takes at most USES queries and new ones for AGE_MS after it opened, then closes
// with its last answer: one used up is replaced at once in the background, one aged out is not (an idle
// upstream keeps no port open). RFC 5452's guarantees hold (§9.2): each query's port is unpredictable
// from off the path, since the pool's ports come from the CSPRNG over ~28,000 and are only ever seen by
// the upstream they are connected to; queries in flight use several ports at once; the ID is
// unpredictable over its full range, and unique on its socket. Two queries for the same question are
// never in flight on one socket (RFC 5452 §5: a forgery then has to match any one of their IDs, so on
// one port its odds grow with their number): the second goes to another socket of the pool, or one of
// its own. A port lives at most AGE_MS
// plus the queries' timeout, too short for a SAD DNS scan (CVE-2020-25705: ~1,000 ports a second) to
// find one and then guess an ID and the letter case before it closes.
import { CASE_LOST, EXACT, MISMATCH, questionMatch, randomCase, restoreCase } from "./case-0x20.ts";
import { noteSent } from "./own-queries.ts";
import { randomU16 } from "./random.ts";
import type { EncryptedTransport } from "./transport.ts";
import { canOpen, openSlot, type PendingQuery, questionHash, type Slot, type SlotOwner } from "./upstream-socket.ts";

/** sockets an upstream's pool keeps while busy (a power of two: the random pick has no bias) */
const POOL = 8;
/**
 * queries a socket takes, and for how long after it opened. 256 a socket was tried: a new socket costs its
 * thread a dozen system calls and Bun's setup (~50 µs of CPU), and forwarded queries at 10k QPS open 312 a
 * second at 32; at 256 the main thread measured no less CPU a forwarded query (bench/mix/wake.ts, five
 * rounds in turns: 48.5 against 47.6 µs, 50.3 against 50.4), and the process more (66.4-68.0 against
 * 70.2-74.5), so the count stayed.
 */
export const USES = 32;
const AGE_MS = 500;
/** answers in a row that lost our letter case before this upstream gets plain queries */
const CASE_STRIKES = 8;
/** how long an upstream that does not keep the case gets plain queries before it is tried again */
const CASE_PAUSE_MS = 10 * 60_000;

export class Upstream implements SlotOwner {
  count = 0;
  answered = 0;
  failed = 0;
  totalMs = 0;
  smoothed = 0;
  closed = false;
  /** DoT or DoH (upstream-dot.ts, upstream-doh.ts): every query of this upstream goes through it */
  enc: EncryptedTransport | null = null;
  /** every open socket: the pool's and the retired ones with queries in flight (a slot removes itself when it closes) */
  readonly slots = new Set<Slot>();
  /** the sockets that take new queries */
  private readonly pool: Slot[] = [];
  /** answers in a row whose question lost the case we sent; 0x20 resumes at caseAgainAt */
  private caseStrikes = 0;
  private caseAgainAt = 0;
  constructor(
    readonly ip: string,
    readonly port: number,
    readonly name: string,
  ) {}

  /** Sends a query (the client's bytes, left untouched); resolves with a checked answer or null. */
  send(query: Uint8Array, end: number, timeoutMs: number): Promise<Uint8Array | null> {
    return new Promise((resolve) =>
      this.dispatch(
        {
          resolve,
          deadline: performance.now() + timeoutMs,
          query,
          end,
          sent: query,
          mixed: false,
          hash: questionHash(query, end),
        },
        this.caseOn(),
      ),
    );
  }

  private caseOn(): boolean {
    return this.caseStrikes < CASE_STRIKES || performance.now() >= this.caseAgainAt;
  }

  private dispatch(p: PendingQuery, mixCase: boolean): void {
    const now = performance.now();
    const slot = this.closed ? null : this.slotFor(p.hash, now);
    if (!slot) {
      p.resolve(null);
      return;
    }
    const msg = new Uint8Array(p.query); // our own copy: the ID and case change
    const id = slot.freeId();
    msg[0] = id >> 8;
    msg[1] = id & 0xff;
    if (mixCase) randomCase(msg, p.end);
    p.sent = msg;
    p.mixed = mixCase;
    noteSent(msg, p.end, this.name, now);
    slot.pending.set(id, p);
    slot.transmit(msg);
    if (++slot.sent >= USES && !slot.retired) {
      this.retire(slot);
      if (canOpen()) this.pool.push(openSlot(this, this.ip, this.port, now)); // its replacement, opened now
    }
  }

  /**
   * The socket for a query: a new one while the pool is short (a quiet upstream's queries each get one),
   * else one of the pool's at random without this question in flight, else one of its own.
   */
  private slotFor(hash: number, now: number): Slot | null {
    const pool = this.pool;
    for (let i = pool.length - 1; i >= 0; i--) if (now - pool[i]!.born >= AGE_MS) this.retire(pool[i]!);
    if (pool.length < POOL && canOpen()) {
      const s = openSlot(this, this.ip, this.port, now);
      pool.push(s);
      return s;
    }
    const n = pool.length;
    const start = n ? randomU16() % n : 0;
    for (let k = 0; k < n; k++) {
      const s = pool[(start + k) % n]!;
      if (!s.has(hash)) return s;
    }
    if (canOpen()) {
      const s = openSlot(this, this.ip, this.port, now);
      s.retire(); // a socket for this query alone
      return s;
    }
    // every descriptor of this thread taken: any socket of this upstream without the question
    for (const s of this.slots) if (!s.has(hash)) return s;
    return null;
  }

  /** No new queries for this socket; it closes now if none is in flight, else with its last answer. */
  private retire(slot: Slot): void {
    slot.retire();
    this.dropped(slot);
    if (slot.pending.size === 0) slot.close();
  }

  /** Called by a slot as it closes or retires: out of the pool. */
  dropped(slot: Slot): void {
    const i = this.pool.indexOf(slot);
    if (i >= 0) this.pool.splice(i, 1);
  }

  /** Called with each datagram on a slot's socket (from its upstream's address and port only). */
  onAnswer(slot: Slot, buf: Uint8Array): void {
    if (buf.length < 12 || !(buf[2]! & 0x80)) return;
    const id = (buf[0]! << 8) | buf[1]!;
    const p = slot.pending.get(id);
    if (!p) return; // late, or not an answer to us
    const match = questionMatch(buf, p.sent, p.end);
    if (match === MISMATCH) return; // a spoof, or garbage: the real answer may still come
    slot.pending.delete(id);
    if (match === CASE_LOST && p.mixed) {
      // the upstream lowercased (or otherwise recased) the name: ask again as the client asked
      if (++this.caseStrikes >= CASE_STRIKES) this.caseAgainAt = performance.now() + CASE_PAUSE_MS;
      this.dispatch(p, false);
    } else {
      if (p.mixed && match === EXACT) this.caseStrikes = 0;
      const a = new Uint8Array(buf); // a copy of its own: the forwarder patches it
      if (p.mixed) restoreCase(a, p.sent, p.query, p.end);
      else for (let i = 12; i < p.end; i++) a[i] = p.query[i]!; // the client's letter case
      p.resolve(a);
    }
    if (slot.pending.size === 0 && slot.retired) slot.close();
  }

  /** Gives up on the queries past their deadline and retires the pool's aged sockets (one sweep for all, not a timer per query). */
  expire(now: number): number {
    let inFlight = 0;
    for (const slot of this.slots) {
      for (const [id, p] of slot.pending) {
        if (p.deadline > now) continue;
        slot.pending.delete(id);
        p.resolve(null);
      }
      if (!slot.retired && now - slot.born >= AGE_MS) this.retire(slot);
      if (slot.pending.size === 0 && slot.retired)
        slot.close(); // deleting while iterating a Set is safe
      else inFlight += slot.pending.size || 1; // an open socket keeps the sweep going until it closes
    }
    return inFlight;
  }

  close(): void {
    this.closed = true;
    this.enc?.close();
    for (const slot of this.slots) {
      for (const p of slot.pending.values()) p.resolve(null);
      slot.pending.clear();
      slot.close();
    }
  }
}

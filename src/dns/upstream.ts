// One upstream server over UDP, hardened against off-path spoofing as RFC 5452 asks: every query
// leaves with an ID from the CSPRNG, from a socket of its own on a fresh port the kernel draws at
// random (as unbound and dnsmasq send them: ~15 bits of port on top of the ID's 16, §9.2, §10),
// which closes as soon as the answer is in or the query expires, so no port lives long enough for
// a SAD DNS scan (CVE-2020-25705) to find it; and with the name's letters in random case (0x20,
// draft-vixie-dnsext-dns0x20). An answer counts only when it arrives on the socket its query left
// from (the sockets are connected: the kernel drops datagrams from any other address or port), with
// that query's ID and its question byte for byte. A spoof that gets any of these wrong is dropped
// and the real answer is still awaited. An upstream that does not echo the letter case gets the
// query again in the client's case, and after CASE_STRIKES such answers in a row, plain queries for
// a while.
//
// A socket costs about a dozen system calls (socket, Bun's setsockopts, bind, connect, epoll, close,
// and a read of its own for the one answer) where a shared socket's queries and answers go out and
// come in batches (sendmmsg, recvmmsg). A home forwards a few queries a second, far below
// FRESH_PER_S, so each gets a port of its own. Past that budget (a flood of unique names, or a
// benchmark) queries share a socket, at most SHARE_MAX of them and only for SHARE_MS after it
// opened, then it closes with its last answer: still a new port every few dozen queries and every
// tenth of a second, where the fixed pool this replaced kept 4 ports for 128 queries each, however
// long that took. MAX_SOCKETS bounds the file descriptors a flood can take.
import type { udp } from "bun";
import { isIP } from "node:net";
import type { EncryptedTransport } from "./transport.ts";
import { UdpBatcher } from "./udp-batch.ts";
import { randomU16 } from "./random.ts";
import { CASE_LOST, EXACT, MISMATCH, questionMatch, randomCase, restoreCase } from "./case-0x20.ts";
import { noteSent } from "./own-queries.ts";

/** sockets a thread may open per second for one query each, once FRESH_BURST is spent */
const FRESH_PER_S = 500;
const FRESH_BURST = 500;
/** queries a shared socket takes, and for how long after it opened */
const SHARE_MAX = 32;
const SHARE_MS = 100;
/** sockets open at once in this thread (unbound's outgoing-range is 4096, dnsmasq's dns-forward-max 150) */
const MAX_SOCKETS = 1000;
/** answers in a row that lost our letter case before this upstream gets plain queries */
const CASE_STRIKES = 8;
/** how long an upstream that does not keep the case gets plain queries before it is tried again */
const CASE_PAUSE_MS = 10 * 60_000;

/** sockets open (or opening) across all upstreams of this thread */
let socketsOpen = 0;
/** the fresh-socket budget: a token bucket (FRESH_BURST, refilled at FRESH_PER_S) */
let tokens = FRESH_BURST;
let tokensAt = 0;

function freshAllowed(now: number): boolean {
  tokens = Math.min(FRESH_BURST, tokens + ((now - tokensAt) * FRESH_PER_S) / 1000);
  tokensAt = now;
  if (tokens < 1) return false;
  tokens--;
  return true;
}

export interface PendingQuery {
  resolve: (a: Uint8Array | null) => void;
  /** performance.now() after which the query counts as lost */
  deadline: number;
  /** the client's query (its ID and question go back into the answer) */
  query: Uint8Array;
  /** offset just past its question */
  end: number;
  /** what went out: the question (in the case sent) is compared with the answer's */
  sent: Uint8Array;
  /** whether the name went out in random case */
  mixed: boolean;
}

/** One socket: its queries in flight by ID, and those waiting for it to open. */
class Slot {
  readonly pending = new Map<number, PendingQuery>();
  sock: udp.ConnectedSocket<"uint8array"> | null = null;
  /** a shared socket's queries go out in batches (one sendmmsg per event-loop turn) */
  out: UdpBatcher | null = null;
  /** queries assigned before the socket opened */
  queued: Uint8Array[] = [];
  sent = 0;
  closed = false;
  constructor(
    readonly up: Upstream,
    /** performance.now() when it was opened */
    readonly born: number,
  ) {}

  freeId(): number {
    let id = randomU16();
    while (this.pending.has(id)) id = randomU16();
    return id;
  }

  /** The socket is open: what was queued goes out. */
  opened(s: udp.ConnectedSocket<"uint8array">): void {
    if (this.closed) {
      s.close();
      return;
    }
    this.sock = s;
    bySocket.set(s, this);
    if (this.queued.length === 1) send(s, this.queued[0]!);
    else if (this.queued.length) {
      try {
        s.sendMany(this.queued);
      } catch {
        // see send()
      }
    }
    this.queued = [];
  }

  /** No socket (no route now: no IPv6, say): its queries fail at once, so the next upstream is tried. */
  failed(): void {
    for (const p of this.pending.values()) p.resolve(null);
    this.pending.clear();
    this.close();
  }

  transmit(m: Uint8Array): void {
    if (!this.sock) this.queued.push(m);
    else if (this.sent === 1) send(this.sock, m);
    else (this.out ??= batcherOf(this.sock)).send(m);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    socketsOpen--;
    this.up.slots.delete(this);
    if (this.sock) {
      bySocket.delete(this.sock);
      this.out?.flush();
      this.sock.close();
    }
  }
}

function batcherOf(s: udp.ConnectedSocket<"uint8array">): UdpBatcher {
  return new UdpBatcher((q) => s.sendMany(q as Uint8Array[]), true);
}

function send(s: udp.ConnectedSocket<"uint8array">, m: Uint8Array): void {
  try {
    s.send(m);
  } catch {
    // an ICMP error left on the socket (ECONNREFUSED): the query is lost, as a datagram can be
  }
}

/** The slot of each socket: one handler object for every socket, no closure per query. */
const bySocket = new Map<udp.ConnectedSocket<"uint8array">, Slot>();
const handlers = {
  data(s: udp.ConnectedSocket<"uint8array">, buf: Uint8Array): void {
    const slot = bySocket.get(s);
    if (slot) slot.up.onAnswer(slot, buf);
  },
  error(): void {},
};

export class Upstream {
  count = 0;
  answered = 0;
  failed = 0;
  totalMs = 0;
  smoothed = 0;
  closed = false;
  /** DoT or DoH (upstream-dot.ts, upstream-doh.ts): every query of this upstream goes through it */
  enc: EncryptedTransport | null = null;
  /** the sockets with queries in flight (a slot removes itself when it closes) */
  readonly slots = new Set<Slot>();
  /** the socket new queries share once the fresh-socket budget is spent */
  private sharing: Slot | null = null;
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
        { resolve, deadline: performance.now() + timeoutMs, query, end, sent: query, mixed: false },
        this.caseOn(),
      ),
    );
  }

  private caseOn(): boolean {
    return this.caseStrikes < CASE_STRIKES || performance.now() >= this.caseAgainAt;
  }

  private dispatch(p: PendingQuery, mixCase: boolean): void {
    const slot = this.closed ? null : this.slotFor();
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
    noteSent(msg, p.end, this.name);
    slot.pending.set(id, p);
    slot.sent++;
    slot.transmit(msg);
  }

  /** A socket of its own for the query while the budget lasts, else the shared one (null: none has room). */
  private slotFor(): Slot | null {
    const now = performance.now();
    if (socketsOpen < MAX_SOCKETS && freshAllowed(now)) return this.openSlot(now);
    const s = this.sharing;
    if (s && !s.closed && s.sent < SHARE_MAX && now - s.born < SHARE_MS) return s;
    if (socketsOpen < MAX_SOCKETS) return (this.sharing = this.openSlot(now));
    // every descriptor taken: any socket of this upstream with room
    this.sharing = null;
    for (const c of this.slots) if (c.sent < SHARE_MAX) return c;
    return null;
  }

  private openSlot(now: number): Slot {
    socketsOpen++;
    const slot = new Slot(this, now);
    this.slots.add(slot);
    // port 0: the kernel draws the port at random from the ephemeral range (Linux's UDP port
    // selection, udp_lib_get_port); the closures are per socket, not per query
    Bun.udpSocket({
      hostname: isIP(this.ip) === 6 ? "::" : "0.0.0.0",
      port: 0,
      binaryType: "uint8array",
      connect: { hostname: this.ip, port: this.port },
      socket: handlers,
    }).then(
      (sock) => slot.opened(sock),
      () => slot.failed(),
    );
    return slot;
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
    if (slot.pending.size === 0 && this.spent(slot, performance.now())) slot.close();
  }

  /** Whether a socket with nothing in flight may close: the shared one waits out its window. */
  private spent(slot: Slot, now: number): boolean {
    return slot !== this.sharing || slot.sent >= SHARE_MAX || now - slot.born >= SHARE_MS;
  }

  /** Gives up on the queries past their deadline (one sweep for all, not a timer per query). */
  expire(now: number): number {
    let inFlight = 0;
    for (const slot of this.slots) {
      for (const [id, p] of slot.pending) {
        if (p.deadline > now) continue;
        slot.pending.delete(id);
        p.resolve(null);
      }
      if (slot.pending.size === 0 && this.spent(slot, now))
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

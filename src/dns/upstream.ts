// One upstream server over UDP, hardened against off-path spoofing as RFC 5452 asks: every query
// leaves with an ID from the CSPRNG, from one of a pool of sockets whose source ports keep
// changing (a socket is retired after ROTATE_AFTER queries and a fresh one with a new random port
// takes its place), and with its name's letters in random case (0x20, draft-vixie-dnsext-dns0x20).
// An answer counts only when it arrives on the socket its query left from (the sockets are
// connected: the kernel drops datagrams from any other address or port), with that query's ID and
// its question byte for byte. A spoof that gets any of these wrong is dropped and the real answer
// is still awaited. An upstream that does not echo the letter case gets the query again in the
// client's case, and after CASE_STRIKES such answers in a row, plain queries for a while.
import type { udp } from "bun";
import { isIP } from "node:net";
import type { EncryptedTransport } from "./transport.ts";
import { UdpBatcher } from "./udp-batch.ts";
import { randomU16 } from "./random.ts";

/** sockets per upstream, each with its own source port */
const POOL = 4;
/** queries a socket sends before a new one (a new source port) replaces it */
const ROTATE_AFTER = 128;
/** answers in a row that lost our letter case before this upstream gets plain queries */
const CASE_STRIKES = 8;
/** how long an upstream that does not keep the case gets plain queries before it is tried again */
const CASE_PAUSE_MS = 10 * 60_000;

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

/** One socket of the pool: its queries in flight by ID. */
class Slot {
  readonly pending = new Map<number, PendingQuery>();
  sent = 0;
  retired = false;
  constructor(
    readonly sock: udp.ConnectedSocket<"uint8array">,
    readonly out: UdpBatcher,
  ) {}

  freeId(): number {
    let id = randomU16();
    while (this.pending.has(id)) id = randomU16();
    return id;
  }
}

export class Upstream {
  count = 0;
  answered = 0;
  failed = 0;
  totalMs = 0;
  smoothed = 0;
  closed = false;
  /** DoT or DoH (upstream-dot.ts, upstream-doh.ts): every query of this upstream goes through it */
  enc: EncryptedTransport | null = null;
  private slots: Slot[] = [];
  private retiring = new Set<Slot>();
  private opening = 0;
  private ready: Promise<boolean> | null = null;
  /** answers in a row whose question lost the case we sent; 0x20 resumes at caseAgainAt */
  private caseStrikes = 0;
  private caseAgainAt = 0;
  constructor(
    readonly ip: string,
    readonly port: number,
    readonly name: string,
  ) {}

  /** Whether a socket is open to send on now (the common case: no wait). */
  get open(): boolean {
    return this.slots.length > 0;
  }

  /** Opens the pool; resolves false when no socket could be opened (no route, say). */
  start(): Promise<boolean> {
    if (this.slots.length) return Promise.resolve(true);
    this.ready ??= Promise.all(Array.from({ length: POOL }, () => this.openSlot())).then(() => {
      this.ready = null;
      return this.slots.length > 0;
    });
    return this.ready;
  }

  private openSlot(): Promise<void> {
    this.opening++;
    let slot: Slot | null = null;
    return Bun.udpSocket({
      hostname: isIP(this.ip) === 6 ? "::" : "0.0.0.0",
      port: 0,
      binaryType: "uint8array",
      connect: { hostname: this.ip, port: this.port },
      socket: {
        data: (_s, buf) => {
          if (slot) this.onAnswer(slot, buf);
        },
        error: () => {},
      },
    }).then(
      (s) => {
        this.opening--;
        if (this.closed) return void s.close();
        slot = new Slot(s, new UdpBatcher((q) => s.sendMany(q as Uint8Array[]), true));
        this.slots.push(slot);
      },
      () => {
        this.opening--; // no route now (no IPv6, say): the next query tries again
      },
    );
  }

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
    const slot = this.slots.length ? this.slots[randomU16() % this.slots.length]! : null;
    if (!slot || this.closed) {
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
    slot.pending.set(id, p);
    slot.out.send(msg);
    // the last open socket stays until its replacements are open (a burst must not find none)
    if (++slot.sent >= ROTATE_AFTER && this.slots.length > 1) this.retire(slot);
    else if (slot.sent >= ROTATE_AFTER && this.opening === 0 && !this.closed) void this.openSlot();
  }

  /** Takes a socket out of use; it closes once its queries are answered or expired. */
  private retire(slot: Slot): void {
    slot.retired = true;
    this.slots.splice(this.slots.indexOf(slot), 1);
    this.retiring.add(slot);
    if (this.opening + this.slots.length < POOL && !this.closed) void this.openSlot();
    this.closeIfDone(slot);
  }

  private closeIfDone(slot: Slot): void {
    if (!slot.retired || slot.pending.size) return;
    this.retiring.delete(slot);
    slot.out.flush();
    slot.sock.close();
  }

  private onAnswer(slot: Slot, buf: Uint8Array): void {
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
      for (let i = 12; i < p.end; i++) a[i] = p.query[i]!; // the client's letter case
      p.resolve(a);
    }
    this.closeIfDone(slot);
  }

  /** Gives up on the queries past their deadline (one sweep for all, not a timer per query). */
  expire(now: number): number {
    let inFlight = 0;
    for (const slot of [...this.slots, ...this.retiring]) {
      for (const [id, p] of slot.pending) {
        if (p.deadline > now) continue;
        slot.pending.delete(id);
        p.resolve(null);
      }
      inFlight += slot.pending.size;
      this.closeIfDone(slot);
    }
    return inFlight;
  }

  close(): void {
    this.closed = true;
    this.enc?.close();
    for (const slot of [...this.slots, ...this.retiring]) {
      for (const p of slot.pending.values()) p.resolve(null);
      slot.pending.clear();
      slot.out.flush();
      slot.sock.close();
    }
    this.slots = [];
    this.retiring.clear();
  }
}

const EXACT = 0,
  CASE_LOST = 1,
  MISMATCH = 2;

/** How the answer's question compares with the one sent: byte for byte, only in letter case, or not at all. */
function questionMatch(a: Uint8Array, sent: Uint8Array, end: number): number {
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
function randomCase(msg: Uint8Array, end: number): void {
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

// One UDP socket of an upstream's pool (upstream.ts): bound to a port from the CSPRNG (source-port.ts)
// and connected to the upstream's address and port, so the kernel drops every datagram from any other
// address or port (RFC 5452 §9.1's first three checks); the ID and the question are upstream.ts's.
// Its queries go out in batches, one sendmmsg per event-loop turn (udp-batch.ts).
import type { udp } from "bun";
import { isIP } from "node:net";
import { randomPort } from "./source-port.ts";
import { randomU16 } from "./random.ts";
import { UdpBatcher } from "./udp-batch.ts";

/** sockets open at once in this thread (unbound's outgoing-range is 4096, dnsmasq's dns-forward-max 150) */
const MAX_SOCKETS = 1000;
/** ports drawn before the kernel picks one (each taken one costs a failed bind) */
const BIND_TRIES = 8;

/** sockets open (or opening) across all upstreams of this thread */
let socketsOpen = 0;

/** the sockets of every upstream's pool (not retired): an idle one gives way when the limit is reached */
const pooled = new Set<Slot>();

/**
 * Whether this thread may open another socket: below MAX_SOCKETS, or once an idle pooled socket of any
 * upstream is closed to make room (a resolver asking many servers at once keeps up to 8 open per server
 * for half a second, which must not leave the next server without any).
 */
export function canOpen(): boolean {
  if (socketsOpen < MAX_SOCKETS) return true;
  for (const s of pooled) {
    if (s.pending.size) continue;
    s.close();
    return true;
  }
  return false;
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
  /** the question's hash, letter case folded (questionHash) */
  hash: number;
}

/** Whoever owns a slot: told each datagram, and forgets the slot when it closes. */
export interface SlotOwner {
  readonly slots: Set<Slot>;
  onAnswer(slot: Slot, buf: Uint8Array): void;
  dropped(slot: Slot): void;
}

/** One socket: its queries in flight by ID, and those waiting for it to open. */
export class Slot {
  readonly pending = new Map<number, PendingQuery>();
  sock: udp.ConnectedSocket<"uint8array"> | null = null;
  private out: UdpBatcher | null = null;
  /** queries assigned before the socket opened */
  private queued: Uint8Array[] = [];
  /** queries sent on it */
  sent = 0;
  /** no new queries: it closes with its last answer */
  retired = false;
  closed = false;
  constructor(
    readonly owner: SlotOwner,
    /** performance.now() when it was opened */
    readonly born: number,
  ) {}

  /** An ID from the CSPRNG that none of this socket's queries in flight has. */
  freeId(): number {
    let id = randomU16();
    while (this.pending.has(id)) id = randomU16();
    return id;
  }

  /** No new queries: it closes with its last answer (the caller closes it now when it has none). */
  retire(): void {
    this.retired = true;
    pooled.delete(this);
  }

  /** Whether a query with this question hash is in flight on this socket. */
  has(hash: number): boolean {
    for (const p of this.pending.values()) if (p.hash === hash) return true;
    return false;
  }

  /** The socket is open: what was queued goes out. */
  opened(s: udp.ConnectedSocket<"uint8array">): void {
    if (this.closed) {
      s.close();
      return;
    }
    this.sock = s;
    bySocket.set(s, this);
    if (this.queued.length) {
      try {
        s.sendMany(this.queued);
      } catch {
        // an ICMP error left on the socket (ECONNREFUSED): those queries are lost, as datagrams can be
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
    else (this.out ??= batcherOf(this.sock)).send(m);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.retire();
    socketsOpen--;
    this.owner.slots.delete(this);
    this.owner.dropped(this);
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

/** The slot of each socket: one handler object for every socket, no closure per query. */
const bySocket = new Map<udp.ConnectedSocket<"uint8array">, Slot>();
const handlers = {
  data(s: udp.ConnectedSocket<"uint8array">, buf: Uint8Array): void {
    const slot = bySocket.get(s);
    if (slot) slot.owner.onAnswer(slot, buf);
  },
  error(): void {},
};

/** A new slot of `owner`, in its pool until retired, whose socket opens in the background; queries given to it meanwhile wait in it. */
export function openSlot(owner: SlotOwner, ip: string, port: number, now: number): Slot {
  socketsOpen++;
  const slot = new Slot(owner, now);
  owner.slots.add(slot);
  pooled.add(slot);
  bind(isIP(ip) === 6 ? "::" : "0.0.0.0", ip, port).then(
    (sock) => slot.opened(sock),
    () => slot.failed(),
  );
  return slot;
}

async function bind(local: string, ip: string, port: number): Promise<udp.ConnectedSocket<"uint8array">> {
  for (let i = 0; ; i++) {
    try {
      return await Bun.udpSocket({
        hostname: local,
        // a port from the CSPRNG; after BIND_TRIES taken ones, the kernel's own random choice (port 0)
        port: i < BIND_TRIES ? randomPort() : 0,
        binaryType: "uint8array",
        connect: { hostname: ip, port },
        socket: handlers,
      });
    } catch (e) {
      if (i >= BIND_TRIES || (e as { code?: string }).code !== "EADDRINUSE") throw e;
    }
  }
}

/** FNV-1a over the question (name, type, class) with the name's letters folded, for "is this question in flight here". */
export function questionHash(q: Uint8Array, end: number): number {
  let h = 0x811c9dc5;
  for (let i = 12; i < end; i++) {
    let c = q[i]!;
    if (c >= 65 && c <= 90 && i < end - 4) c |= 0x20; // the name's letters, not type and class
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

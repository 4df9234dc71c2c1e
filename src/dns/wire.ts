// DNS wire format on the hot path: a hand parse of the header, question and EDNS OPT record, and a
// walker over answer records. Replies are built by patching the query's own bytes (dns-packet cost
// ~40% of throughput when measured with bench/dns/run.ts), so the question goes back exactly as asked (0x20 case).

export const QR = 0x8000,
  AA = 0x0400,
  TC = 0x0200,
  RD = 0x0100,
  RA = 0x0080,
  CD = 0x0010;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, BADVERS: 16 } as const;
export const TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  SVCB: 64,
  HTTPS: 65,
  ANY: 255,
} as const;

/** What the server advertises and accepts as the largest UDP answer (DNS flag day 2020). */
export const OUR_UDP_SIZE = 1232;

export interface Question {
  id: number;
  flags: number;
  /** lowercase dotted name without trailing dot ("" for the root) */
  name: string;
  /** lowercased wire form of the name, terminating zero included */
  wire: Uint8Array;
  /** start offset in `wire` of every label (for suffix lookups), root excluded */
  labels: number[];
  qtype: number;
  qclass: number;
  /** offset just past the question section in the query */
  end: number;
  edns: boolean;
  /** the client's advertised UDP payload size (512 without EDNS) */
  udpSize: number;
  dnssecOk: boolean;
  /** the EDNS version the client speaks (0 without EDNS; only 0 exists) */
  ednsVersion: number;
  checkingDisabled: boolean;
  /** offset and length of the OPT record's options in the query (-1 without EDNS) */
  optAt: number;
  optLen: number;
  /** offset just past the last record the header counts: bytes from here on are not the message's */
  size: number;
}

/** Why a packet could not be used: drop it silently, or answer with this rcode. */
export class WireError extends Error {
  constructor(readonly rcode: number | null) {
    super(rcode === null ? "drop" : `rcode ${rcode}`);
  }
}

const u16 = (b: Uint8Array, o: number) => (b[o]! << 8) | b[o + 1]!;
const u32 = (b: Uint8Array, o: number) => ((b[o]! << 24) >>> 0) + (b[o + 1]! << 16) + (b[o + 2]! << 8) + b[o + 3]!;

/** Scratch for a question name's text: labels are ≤ 63 bytes and a name ≤ 255, dots included. */
const NAME_TEXT = Buffer.alloc(256) as Buffer & { latin1Slice(start: number, end: number): string };

/** The text of the plain-label name at `o`, lowercase, with any byte other than a printable non-dot escaped as \DDD. */
function escapedName(buf: Uint8Array, o: number): string {
  let name = "";
  for (let len = buf[o]!; len !== 0; o += len + 1, len = buf[o]!) {
    if (name.length) name += ".";
    for (let i = o + 1; i <= o + len; i++) {
      let c = buf[i]!;
      if (c >= 65 && c <= 90) c += 32;
      // names are mostly plain; other bytes are escaped so a name string is always unambiguous
      name += c > 32 && c < 127 && c !== 46 && c !== 92 ? String.fromCharCode(c) : `\\${c.toString().padStart(3, "0")}`;
    }
  }
  return name;
}

const NO_WIRE = new Uint8Array(0);

/**
 * Parses a query. Throws WireError(null) for packets to drop, WireError(rcode) for ones to refuse.
 * `into`: a question no one holds any more, whose object and labels array are refilled instead of new
 * ones (the engine's for a query answered at once: two objects fewer per query); every field is set.
 */
export function parseQuery(buf: Uint8Array, into: Question | null = null): Question {
  if (buf.length < 12) throw new WireError(null);
  const flags = u16(buf, 2);
  if (flags & QR) throw new WireError(null); // a response: never answer it (reflection loops)
  const opcode = (flags >> 11) & 0xf;
  if (opcode !== 0) throw new WireError(RCODE.NOTIMP);
  if (u16(buf, 4) !== 1) throw new WireError(RCODE.FORMERR);
  if (u16(buf, 6) !== 0 || u16(buf, 8) !== 0) throw new WireError(RCODE.FORMERR);
  const arcount = u16(buf, 10);
  // the name: plain labels only (compression in a question is not something resolvers send)
  let o = 12;
  const labels: number[] = into === null ? [] : into.labels;
  labels.length = 0;
  // the name's text is made in one step from NAME_TEXT (a string per character would be ~20
  // strings a query for the collector); any byte that needs an escape takes the slow path
  let n = 0;
  let plain = true;
  for (;;) {
    if (o >= buf.length) throw new WireError(RCODE.FORMERR);
    const len = buf[o]!;
    if (len === 0) break;
    if (len > 63) throw new WireError(RCODE.FORMERR);
    if (o + 1 + len > buf.length) throw new WireError(RCODE.FORMERR);
    labels.push(o - 12);
    if (n) NAME_TEXT[n++] = 46;
    for (let i = o + 1; i <= o + len; i++) {
      let c = buf[i]!;
      if (c >= 65 && c <= 90) c += 32;
      if (c <= 32 || c >= 127 || c === 46 || c === 92) plain = false;
      NAME_TEXT[n++] = c;
    }
    o += 1 + len;
    if (o - 12 > 254) throw new WireError(RCODE.FORMERR);
  }
  const name = plain ? NAME_TEXT.latin1Slice(0, n) : escapedName(buf, 12);
  o++;
  if (o + 4 > buf.length) throw new WireError(RCODE.FORMERR);
  // a copy of its own (a Buffer's slice() would be a view: lowercasing it would rewrite the query)
  // length bytes are ≤ 63, so every byte in A–Z is a letter
  const wire = new Uint8Array(o - 12);
  for (let i = 0; i < wire.length; i++) {
    const c = buf[12 + i]!;
    wire[i] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  const qtype = u16(buf, o);
  const qclass = u16(buf, o + 2);
  const end = o + 4;
  const q: Question =
    into === null
      ? {
          id: 0,
          flags: 0,
          name: "",
          wire: NO_WIRE,
          labels,
          qtype: 0,
          qclass: 0,
          end: 0,
          edns: false,
          udpSize: 512,
          dnssecOk: false,
          ednsVersion: 0,
          checkingDisabled: false,
          optAt: -1,
          optLen: 0,
          size: 0,
        }
      : into;
  q.id = u16(buf, 0);
  q.flags = flags;
  q.name = name;
  q.wire = wire;
  q.labels = labels;
  q.qtype = qtype;
  q.qclass = qclass;
  q.end = end;
  q.edns = false;
  q.udpSize = 512;
  q.dnssecOk = false;
  q.ednsVersion = 0;
  q.checkingDisabled = (flags & CD) !== 0;
  q.optAt = -1;
  q.optLen = 0;
  q.size = end;
  // additional section: look for OPT
  let p = end;
  for (let i = 0; i < arcount; i++) {
    const nameEnd = skipName(buf, p);
    if (nameEnd < 0 || nameEnd + 10 > buf.length) throw new WireError(RCODE.FORMERR);
    const type = u16(buf, nameEnd);
    const rdlen = u16(buf, nameEnd + 8);
    if (nameEnd + 10 + rdlen > buf.length) throw new WireError(RCODE.FORMERR);
    if (type === TYPE.OPT) {
      if (q.edns) throw new WireError(RCODE.FORMERR); // two OPT records (RFC 6891 §6.1.1)
      q.edns = true;
      q.udpSize = Math.max(512, u16(buf, nameEnd + 2));
      q.ednsVersion = buf[nameEnd + 5]!;
      q.dnssecOk = (buf[nameEnd + 6]! & 0x80) !== 0;
      q.optAt = nameEnd + 10;
      q.optLen = rdlen;
    }
    p = nameEnd + 10 + rdlen;
  }
  q.size = p;
  return q;
}

/** The EDNS option `code` of a query as [offset, length] of its data, or null. */
export function findOption(buf: Uint8Array, q: Question, code: number): [number, number] | null {
  let o = q.optAt;
  const end = q.optAt + q.optLen;
  while (o >= 0 && o + 4 <= end) {
    const len = u16(buf, o + 2);
    if (o + 4 + len > end) return null;
    if (u16(buf, o) === code) return [o + 4, len];
    o += 4 + len;
  }
  return null;
}

/** Offset after a (possibly compressed) name, or -1 when it runs off the buffer. */
export function skipName(buf: Uint8Array, o: number): number {
  for (let guard = 0; guard < 128; guard++) {
    if (o >= buf.length) return -1;
    const len = buf[o]!;
    if (len === 0) return o + 1;
    if ((len & 0xc0) === 0xc0) return o + 2 <= buf.length ? o + 2 : -1;
    if (len > 63) return -1;
    o += 1 + len;
  }
  return -1;
}

/** Offset just past the (possibly compressed) name at `o`, without reading it; -1 when it runs past the end. */
export function nameEnd(buf: Uint8Array, o: number): number {
  while (o < buf.length) {
    const len = buf[o]!;
    if (len === 0) return o + 1;
    if ((len & 0xc0) === 0xc0) return o + 2;
    o += len + 1;
  }
  return -1;
}

/** Reads a (possibly compressed) name as lowercase dotted text; null when malformed (or over 255 bytes). */
export function readName(buf: Uint8Array, o: number): string | null {
  let n = 0;
  for (let jumps = 0; jumps < 64; ) {
    if (o >= buf.length) return null;
    const len = buf[o]!;
    if (len === 0) return NAME_TEXT.latin1Slice(0, n);
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= buf.length) return null;
      o = ((len & 0x3f) << 8) | buf[o + 1]!;
      jumps++;
      continue;
    }
    if (len > 63 || o + 1 + len > buf.length || n + len + 1 > NAME_TEXT.length) return null;
    if (n) NAME_TEXT[n++] = 46;
    for (let i = o + 1; i <= o + len; i++) {
      const c = buf[i]!;
      NAME_TEXT[n++] = c >= 65 && c <= 90 ? c + 32 : c;
    }
    o += 1 + len;
  }
  return null;
}

const NAME_SCRATCH = new Uint8Array(255);

/**
 * The (possibly compressed) name at `o` in uncompressed wire form, terminating zero included; lowercase
 * when `lower` (RFC 4034 §6.2's canonical form). Null when malformed.
 */
export function expandName(buf: Uint8Array, o: number, lower: boolean): Uint8Array | null {
  const out = NAME_SCRATCH; // written here, then copied once: no array of numbers per name
  let n = 0;
  for (let jumps = 0; jumps < 64; ) {
    if (o >= buf.length) return null;
    const len = buf[o]!;
    if (len === 0) {
      out[n++] = 0;
      return out.slice(0, n);
    }
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= buf.length) return null;
      o = ((len & 0x3f) << 8) | buf[o + 1]!;
      jumps++;
      continue;
    }
    if (len > 63 || o + 1 + len > buf.length || n + 1 + len >= 255) return null; // 255 bytes at most, the root's zero included
    out[n++] = len;
    for (let i = o + 1; i <= o + len; i++) {
      const c = buf[i]!;
      out[n++] = lower && c >= 65 && c <= 90 ? c + 32 : c;
    }
    o += 1 + len;
  }
  return null;
}

interface ResourceRecord {
  name: string | null;
  /** offset of the owner name (DNSSEC reads it again in wire form) */
  nameAt: number;
  type: number;
  ttl: number;
  /** offset of the TTL field in the message (for patching) */
  ttlAt: number;
  rdata: number;
  rdlen: number;
  section: 0 | 1 | 2;
}

export interface Message {
  id: number;
  flags: number;
  rcode: number;
  qdcount: number;
  questionEnd: number;
  records: ResourceRecord[];
}

/** Walks a whole message (an upstream answer). Names of records are read only when `names` is set. */
export function walkMessage(buf: Uint8Array, names = false): Message | null {
  if (buf.length < 12) return null;
  const qd = u16(buf, 4),
    an = u16(buf, 6),
    ns = u16(buf, 8),
    ar = u16(buf, 10);
  let o = 12;
  for (let i = 0; i < qd; i++) {
    o = skipName(buf, o);
    if (o < 0 || o + 4 > buf.length) return null;
    o += 4;
  }
  const questionEnd = o;
  const records: ResourceRecord[] = [];
  const total = an + ns + ar;
  for (let i = 0; i < total; i++) {
    const start = o;
    o = skipName(buf, o);
    if (o < 0 || o + 10 > buf.length) return null;
    const rdlen = u16(buf, o + 8);
    if (o + 10 + rdlen > buf.length) return null;
    records.push({
      name: names ? readName(buf, start) : null,
      nameAt: start,
      type: u16(buf, o),
      ttl: u32(buf, o + 4),
      ttlAt: o + 4,
      rdata: o + 10,
      rdlen,
      section: i < an ? 0 : i < an + ns ? 1 : 2,
    });
    o += 10 + rdlen;
  }
  return { id: u16(buf, 0), flags: u16(buf, 2), rcode: buf[3]! & 0xf, qdcount: qd, questionEnd, records };
}

export const getU16 = u16;
export const getU32 = u32;

// Builds replies from the query's own bytes: the header and question are copied (so the client gets
// its question back byte for byte) and records are appended with a pointer to the question name.
import { Status } from "../query/enums.ts";
import type { QueryContext } from "./context.ts";
import { AA, OUR_UDP_SIZE, QR, RA, RD, CD, TC, getU16, type Question } from "./wire.ts";

export interface RR {
  type: number;
  ttl: number;
  /** rdata bytes */
  data: Uint8Array;
  /** owner name in wire form; absent = the question name (compression pointer) */
  owner?: Uint8Array;
}

export interface Ede {
  code: number;
  text: string;
}

const enc = new TextEncoder();
/** EDE texts are a handful of reasons ("(gravity)", "(regex)", …): encode each once. */
const edeCache = new Map<string, Uint8Array>();
function edeBytes(text: string): Uint8Array {
  let b = edeCache.get(text);
  if (!b) {
    b = enc.encode(text);
    if (edeCache.size < 256) edeCache.set(text, b);
  }
  return b;
}

const NO_RECORDS: readonly RR[] = Object.freeze([]);

/**
 * An answer Moat makes from its own configuration (local records, its own names, special-use names):
 * authoritative (AA), and logged as Pi-hole's FTL logs the answers dnsmasq makes itself (CACHE).
 */
export function ownAnswer(ctx: QueryContext, rcode: number, answers: readonly RR[], reply: number): Uint8Array {
  ctx.status = Status.CACHE;
  ctx.reply = reply;
  const out = buildReply(ctx.query, ctx.q, rcode, answers);
  out[2] = out[2]! | (AA >> 8);
  return out;
}

/** A reply to `q` with the given rcode and answer/authority records, plus an OPT when the client sent one. */
export function buildReply(
  query: Uint8Array,
  q: Question,
  rcode: number,
  answers: readonly RR[] = NO_RECORDS,
  authority: readonly RR[] = NO_RECORDS,
  ede?: Ede | null,
): Uint8Array {
  // sized exactly and filled without temporary views or arrays: this runs for every local answer
  let size = q.end;
  for (let i = 0; i < answers.length; i++) size += rrSize(answers[i]!);
  for (let i = 0; i < authority.length; i++) size += rrSize(authority[i]!);
  const edeText = q.edns && ede ? edeBytes(ede.text) : null;
  if (q.edns) size += 11 + (edeText ? 6 + edeText.length : 0);
  const out = new Uint8Array(size);
  for (let i = 0; i < q.end; i++) out[i] = query[i]!;
  out[2] = ((QR | (q.flags & (RD | 0x7800))) >> 8) & 0xff;
  out[3] = (RA | (q.flags & CD) | (rcode & 0xf)) & 0xff;
  setU16(out, 6, answers.length);
  setU16(out, 8, authority.length);
  setU16(out, 10, q.edns ? 1 : 0);
  let o = q.end;
  for (let i = 0; i < answers.length; i++) o = writeRR(out, o, answers[i]!);
  for (let i = 0; i < authority.length; i++) o = writeRR(out, o, authority[i]!);
  if (q.edns) writeOpt(out, o, q.dnssecOk, edeText ? ede! : null, edeText, rcode >> 4);
  return out;
}

const rrSize = (r: RR) => (r.owner?.length ?? 2) + 10 + r.data.length;

function writeRR(out: Uint8Array, o: number, r: RR): number {
  if (r.owner) {
    out.set(r.owner, o);
    o += r.owner.length;
  } else {
    out[o++] = 0xc0;
    out[o++] = 12;
  }
  setU16(out, o, r.type);
  setU16(out, o + 2, 1);
  setU32(out, o + 4, r.ttl);
  setU16(out, o + 8, r.data.length);
  out.set(r.data, o + 10);
  return o + 10 + r.data.length;
}

/** `extRcode`: the upper 8 bits of a 12-bit rcode (BADVERS = 16 → 1), RFC 6891 §6.1.3 */
function writeOpt(
  out: Uint8Array,
  o: number,
  dnssecOk: boolean,
  ede: Ede | null,
  text: Uint8Array | null,
  extRcode = 0,
): number {
  out[o++] = 0;
  setU16(out, o, 41);
  setU16(out, o + 2, OUR_UDP_SIZE);
  out[o + 4] = extRcode;
  out[o + 5] = 0; // version
  out[o + 6] = dnssecOk ? 0x80 : 0;
  out[o + 7] = 0;
  const optLen = ede ? 6 + text!.length : 0;
  setU16(out, o + 8, optLen);
  o += 10;
  if (ede) {
    setU16(out, o, 15); // EDE option code (RFC 8914)
    setU16(out, o + 2, 2 + text!.length);
    setU16(out, o + 4, ede.code);
    out.set(text!, o + 6);
    o += optLen;
  }
  return o;
}

/** An error reply from whatever could be read of a bad query: header (and question if parsed). */
export function errorFromHeader(buf: Uint8Array, rcode: number): Uint8Array | null {
  if (buf.length < 12) return null;
  const out = new Uint8Array(12);
  out.set(buf.subarray(0, 4));
  out[2] = (out[2]! | 0x80) & ~0x02 & 0xff; // QR, clear TC
  out[2] = out[2]! & (0x80 | 0x78 | 0x01);
  out[3] = RA | rcode;
  return out;
}

/** Truncates an answer that does not fit the client's UDP size: header + question, TC set, OPT kept. */
export function truncateFor(reply: Uint8Array, q: Question): Uint8Array {
  const limit = q.edns ? Math.min(q.udpSize, 65535) : 512;
  if (reply.length <= limit) return reply;
  const out = new Uint8Array(q.end + (q.edns ? 11 : 0));
  out.set(reply.subarray(0, q.end));
  out[2] = out[2]! | (TC >> 8);
  setU16(out, 6, 0);
  setU16(out, 8, 0);
  setU16(out, 10, q.edns ? 1 : 0);
  if (q.edns) writeOpt(out, q.end, q.dnssecOk, null, null);
  return out;
}

/**
 * Puts the client's id and question (with its letter case) into a copy of an answer obtained for the
 * same name: `answer`'s bytes from `start` to `end` (a cache entry holds more than the answer).
 */
export function adoptAnswer(
  answer: Uint8Array,
  query: Uint8Array,
  q: Question,
  start = 0,
  end = answer.length,
): Uint8Array {
  const out = answer.slice(start, end);
  out[0] = query[0]!;
  out[1] = query[1]!;
  // same question length is guaranteed when the name matched case-insensitively
  if (getU16(out, 4) === 1 && out.length >= q.end) for (let i = 12; i < q.end; i++) out[i] = query[i]!;
  return out;
}

export function setU16(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 8) & 0xff;
  b[o + 1] = v & 0xff;
}

export function setU32(b: Uint8Array, o: number, v: number): void {
  b[o] = (v >>> 24) & 0xff;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}

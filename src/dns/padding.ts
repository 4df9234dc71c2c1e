// EDNS(0) padding (RFC 7830) of queries sent over an encrypted transport: a query is padded to a
// multiple of 128 bytes (the block length RFC 8467 §4.1 recommends for queries), so its size says
// little about the name. Queries that already carry a padding option are left as the client made them.
import { OUR_UDP_SIZE, nameEnd } from "./wire.ts";

const BLOCK = 128;
const PADDING = 12;

const u16 = (b: Uint8Array, o: number) => (b[o]! << 8) | b[o + 1]!;

/** Offset of the OPT record's RDLENGTH in `msg`, -1 without one, -2 when the message is malformed. */
function optRdlenAt(msg: Uint8Array): number {
  if (msg.length < 12) return -2;
  let o = 12;
  const counts = [u16(msg, 4), u16(msg, 6), u16(msg, 8), u16(msg, 10)];
  for (let s = 0; s < 4; s++) {
    for (let i = 0; i < counts[s]!; i++) {
      o = nameEnd(msg, o);
      if (o < 0) return -2;
      if (s === 0) {
        o += 4;
        continue;
      }
      if (o + 10 > msg.length) return -2;
      if (s === 3 && u16(msg, o) === 41) return o + 8;
      o += 10 + u16(msg, o + 8);
    }
  }
  return o > msg.length ? -2 : -1;
}

/** `msg` with a padding option (a new copy), or `msg` itself when it cannot or need not be padded. */
export function padQuery(msg: Uint8Array): Uint8Array {
  const at = optRdlenAt(msg);
  if (at === -2) return msg;
  if (at >= 0) {
    // options already there: is one of them padding?
    const end = at + 2 + u16(msg, at);
    for (let o = at + 2; o + 4 <= end; o += 4 + u16(msg, o + 2)) if (u16(msg, o) === PADDING) return msg;
    const pad = padFor(msg.length + 4);
    const out = new Uint8Array(msg.length + 4 + pad);
    out.set(msg.subarray(0, end));
    out.set(msg.subarray(end), end + 4 + pad);
    const rdlen = u16(msg, at) + 4 + pad;
    out[at] = rdlen >> 8;
    out[at + 1] = rdlen & 0xff;
    out[end + 1] = PADDING;
    out[end + 2] = pad >> 8;
    out[end + 3] = pad & 0xff;
    return out;
  }
  // no OPT record: add one that carries only the padding
  const pad = padFor(msg.length + 11 + 4);
  const out = new Uint8Array(msg.length + 15 + pad);
  out.set(msg);
  let o = msg.length;
  out[o + 2] = 41; // root name, type OPT
  out[o + 3] = OUR_UDP_SIZE >> 8;
  out[o + 4] = OUR_UDP_SIZE & 0xff;
  out[o + 9] = (4 + pad) >> 8;
  out[o + 10] = (4 + pad) & 0xff;
  o += 11;
  out[o + 1] = PADDING;
  out[o + 2] = pad >> 8;
  out[o + 3] = pad & 0xff;
  const ar = u16(msg, 10) + 1;
  out[10] = ar >> 8;
  out[11] = ar & 0xff;
  return out;
}

function padFor(len: number): number {
  return (BLOCK - (len % BLOCK)) % BLOCK;
}

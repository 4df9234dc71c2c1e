// Packets for the DNS fuzzer, from a seeded generator so a failing run can be repeated: well-formed
// queries with random names, types, flags and EDNS options; the same mutated (bits flipped, cut,
// extended, counts and lengths changed, compression loops); and plain garbage. Also the checks a
// client makes of an answer: it parses, it is a response, it echoes the ID and the question.
import * as packet from "dns-packet";

export type Kind = "query" | "mutated" | "garbage";

const TYPES = [1, 28, 5, 12, 15, 16, 33, 65, 64, 6, 2, 255, 46, 48, 43, 0, 41, 251, 252, 65535, 99];
const NAMES = [
  "pi.hole",
  "local.fuzz.test",
  "blocked.fuzz.test",
  "fwd.fuzz.test",
  "nx-x.fuzz.test",
  "big-x.fuzz.test",
  "1.0.0.127.in-addr.arpa",
  "lan",
  "",
];
const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

export class PacketMaker {
  constructor(private readonly r: () => number) {}

  int(n: number): number {
    return Math.floor(this.r() * n);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  /** A name in wire form: known names, random labels, odd bytes now and then. */
  private nameWire(): number[] {
    const out: number[] = [];
    if (this.r() < 0.4) {
      const n = this.pick(NAMES);
      for (const l of n ? n.split(".") : [])
        out.push(l.length, ...[...l].map((c) => (this.r() < 0.3 ? c.toUpperCase() : c).charCodeAt(0)));
    } else {
      const labels = this.int(6);
      for (let i = 0; i < labels; i++) {
        const len = this.r() < 0.05 ? 40 + this.int(24) : 1 + this.int(12);
        out.push(len);
        for (let k = 0; k < len; k++)
          out.push(this.r() < 0.03 ? this.int(256) : ALNUM.charCodeAt(this.int(ALNUM.length)));
      }
    }
    out.push(0);
    return out;
  }

  private opt(): number[] {
    const opts: number[] = [];
    const n = this.int(4);
    for (let i = 0; i < n; i++) {
      const which = this.int(5);
      let code: number, data: number[];
      if (which === 0) {
        // client subnet
        const fam = 1 + this.int(2);
        const prefix = this.int(fam === 1 ? 33 : 129);
        code = 8;
        data = [0, fam, prefix, 0, ...Array.from({ length: Math.ceil(prefix / 8) }, () => this.int(256))];
      } else if (which === 1) {
        code = 10; // cookie
        data = Array.from({ length: 8 + (this.r() < 0.5 ? 0 : 8 + this.int(24)) }, () => this.int(256));
      } else if (which === 2) {
        code = 12; // padding
        data = new Array(this.int(300)).fill(0);
      } else {
        code = this.int(65536);
        data = Array.from({ length: this.int(20) }, () => this.int(256));
      }
      opts.push(code >> 8, code & 0xff, data.length >> 8, data.length & 0xff, ...data);
    }
    const size = this.r() < 0.1 ? this.int(65536) : 1232;
    const version = this.r() < 0.05 ? 1 + this.int(255) : 0;
    const flags = this.r() < 0.3 ? 0x80 : 0;
    return [
      0,
      0,
      41,
      size >> 8,
      size & 0xff,
      this.r() < 0.05 ? this.int(256) : 0,
      version,
      flags,
      0,
      opts.length >> 8,
      opts.length & 0xff,
      ...opts,
    ];
  }

  /** A query a resolver could send (now and then with an unusual opcode, class or flag). */
  query(): Uint8Array {
    const name = this.nameWire();
    const qtype = this.pick(TYPES);
    const qclass = this.r() < 0.9 ? 1 : this.pick([3, 4, 254, 255, 0]);
    const edns = this.r() < 0.6;
    const flags1 = (this.r() < 0.95 ? 0 : this.int(16) << 3) | (this.r() < 0.8 ? 1 : 0);
    const flags2 = (this.r() < 0.2 ? 0x10 : 0) | (this.r() < 0.2 ? 0x20 : 0);
    const bytes = [
      0,
      0,
      flags1,
      flags2,
      0,
      1,
      0,
      0,
      0,
      0,
      0,
      edns ? 1 : 0,
      ...name,
      qtype >> 8,
      qtype & 0xff,
      qclass >> 8,
      qclass & 0xff,
      ...(edns ? this.opt() : []),
    ];
    return new Uint8Array(bytes);
  }

  mutated(): Uint8Array {
    let b = [...this.query()];
    const edits = 1 + this.int(4);
    for (let e = 0; e < edits; e++) {
      const op = this.int(8);
      const at = this.int(Math.max(1, b.length));
      if (op === 0) b[at] = b[at]! ^ (1 << this.int(8));
      else if (op === 1) b = b.slice(0, at);
      else if (op === 2) b.push(...Array.from({ length: this.int(64) }, () => this.int(256)));
      else if (op === 3 && b.length >= 12)
        b[4 + 2 * this.int(4) + 1] = this.int(256); // a section count
      else if (op === 4 && b.length > 13)
        b.splice(12, 0, 0xc0, 12); // a pointer to itself
      else if (op === 5) b[at] = this.int(256);
      else if (op === 6 && b.length > 14)
        b[12] = 63 + this.int(193); // a label length too long or a pointer
      else if (op === 7) b.splice(at, this.int(8));
    }
    return new Uint8Array(b);
  }

  garbage(): Uint8Array {
    return Uint8Array.from({ length: this.int(this.r() < 0.2 ? 12 : 600) }, () => this.int(256));
  }

  next(): { kind: Kind; bytes: Uint8Array } {
    const x = this.r();
    const kind: Kind = x < 0.45 ? "query" : x < 0.85 ? "mutated" : "garbage";
    return { kind, bytes: kind === "query" ? this.query() : kind === "mutated" ? this.mutated() : this.garbage() };
  }
}

/** The question section's bytes (name, type, class) of a message, or null when it has none we can read. */
function questionBytes(m: Uint8Array): Uint8Array | null {
  if (m.length < 12 || ((m[4]! << 8) | m[5]!) !== 1) return null;
  let o = 12;
  for (;;) {
    if (o >= m.length) return null;
    const len = m[o]!;
    if (len === 0) break;
    if (len > 63) return null;
    o += 1 + len;
  }
  o++;
  return o + 4 <= m.length ? m.subarray(12, o + 4) : null;
}

/**
 * What is wrong with `answer` as the reply to `query` (null when nothing): it must parse, be a
 * response, carry the ID, and carry the question byte for byte, or no question at all when the
 * query's could not be read (FORMERR, NOTIMP).
 */
export function judgeAnswer(query: Uint8Array, answer: Uint8Array): string | null {
  if (answer.length < 12) return "shorter than a header";
  if (query.length >= 2 && (answer[0] !== query[0] || answer[1] !== query[1])) return "wrong ID";
  if (!(answer[2]! & 0x80)) return "QR not set";
  try {
    packet.decode(Buffer.from(answer));
  } catch (e) {
    return `does not parse: ${(e as Error).message}`;
  }
  const qd = (answer[4]! << 8) | answer[5]!;
  const rcode = answer[3]! & 0xf;
  if (qd > 1) return `${qd} questions`;
  if (qd === 1) {
    const a = questionBytes(answer),
      q = questionBytes(query);
    if (!a || !q || a.length !== q.length || a.some((x, i) => x !== q[i])) return "question differs from the query's";
  } else if (rcode === 0 || rcode === 3) return "an answer without the question";
  return null;
}

/** Whether no answer at all is the right reply: too short for a header, or itself a response. */
export function mustNotAnswer(query: Uint8Array): boolean {
  return query.length < 12 || (query[2]! & 0x80) !== 0;
}

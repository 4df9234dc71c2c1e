// answerText() for every answered query without a walk, an object per record and string building each time:
// most answers repeat (cache hits, popular names, one CDN's addresses), so the text is kept per distinct
// answer section. The key is what the text is made of and nothing else: each record's type, the address of
// an A/AAAA, the name (expanded, lowercase) of a CNAME/PTR/NS/MX; not the owner names, classes or TTLs,
// so a cached answer whose TTLs count down, or the same address for another name, finds its text. Keys are
// matched byte for byte, the hash only picks the slot; a lookup allocates nothing.
import { answerText } from "./answer-text.ts";
import { TYPE, skipName as skip } from "./wire.ts";

/** distinct answer sections kept; a full memo forgets its oldest */
const MEMO_MAX = 4096;
/** longest key kept (about 60 addresses); a larger answer is rendered each time */
const KEY_MAX = 512;
/** key(): the message is malformed (answerText gives null); the answer cannot be keyed (rendered each time) */
const MALFORMED = -1;
const UNKEYED = -2;

interface Entry {
  key: Uint8Array;
  text: string | null;
}

export class AnswerTextMemo {
  private readonly map = new Map<number, Entry>();
  private readonly scratch = new Uint8Array(KEY_MAX);
  /** answers whose text came from the memo (for tests and profiles) */
  hits = 0;

  constructor(private readonly max = MEMO_MAX) {}

  get size(): number {
    return this.map.size;
  }

  /** answerText(reply), the same text, from the memo when this answer section was seen before. */
  text(reply: Uint8Array): string | null {
    const len = this.key(reply);
    if (len < 0) return len === MALFORMED ? null : answerText(reply);
    if (len === 0) return null; // no answer records: a block, NXDOMAIN, NODATA
    const s = this.scratch;
    let h = 0x811c9dc5;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ s[i]!, 0x01000193);
    const e = this.map.get(h);
    if (e !== undefined && e.key.length === len) {
      const k = e.key;
      let i = 0;
      while (i < len && k[i] === s[i]) i++;
      if (i === len) {
        this.hits++;
        return e.text;
      }
    }
    const text = answerText(reply);
    if (e === undefined && this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(h, { key: s.slice(0, len), text });
    return text;
  }

  /**
   * Writes the answer section's key into scratch and returns its length; MALFORMED where walkMessage would
   * fail (answerText gives null), UNKEYED where the answer cannot be keyed (too long, a bad name in rdata).
   */
  private key(b: Uint8Array): number {
    if (b.length < 12) return MALFORMED;
    const qd = (b[4]! << 8) | b[5]!;
    const an = (b[6]! << 8) | b[7]!;
    const total = an + ((b[8]! << 8) | b[9]!) + ((b[10]! << 8) | b[11]!);
    let o = 12;
    for (let i = 0; i < qd; i++) {
      o = skip(b, o);
      if (o < 0 || o + 4 > b.length) return MALFORMED;
      o += 4;
    }
    const s = this.scratch;
    let n = 0;
    let unkeyed = false;
    for (let i = 0; i < total; i++) {
      o = skip(b, o);
      if (o < 0 || o + 10 > b.length) return MALFORMED;
      const rdlen = (b[o + 8]! << 8) | b[o + 9]!;
      const at = o + 10;
      if (at + rdlen > b.length) return MALFORMED;
      o = at + rdlen;
      // the other sections only have to be whole, as walkMessage asks
      if (i >= an || unkeyed) continue;
      const type = (b[at - 10]! << 8) | b[at - 9]!;
      if (n + 4 + rdlen > KEY_MAX) {
        unkeyed = true;
        continue;
      }
      s[n++] = type >> 8;
      s[n++] = type & 0xff;
      if (type === TYPE.A || type === TYPE.AAAA) {
        s[n++] = rdlen >> 8;
        s[n++] = rdlen & 0xff;
        for (let j = 0; j < rdlen; j++) s[n++] = b[at + j]!;
      } else if (type === TYPE.CNAME || type === TYPE.PTR || type === TYPE.NS) {
        n = this.name(b, at, n);
      } else if (type === TYPE.MX) {
        s[n++] = rdlen > 2 ? 1 : 0;
        if (rdlen > 2) {
          s[n++] = b[at]!;
          s[n++] = b[at + 1]!;
          n = this.name(b, at + 2, n);
        }
      }
      if (n < 0) unkeyed = true;
    }
    return unkeyed ? UNKEYED : n;
  }

  /** The name at `o` expanded into scratch at `n` as lowercase labels ending in 0; -1 when it does not fit or is malformed. */
  private name(b: Uint8Array, o: number, n: number): number {
    const s = this.scratch;
    for (let jumps = 0; jumps < 64; ) {
      if (o >= b.length) return -1;
      const len = b[o]!;
      if (len === 0) {
        if (n >= KEY_MAX) return -1;
        s[n++] = 0;
        return n;
      }
      if ((len & 0xc0) === 0xc0) {
        if (o + 1 >= b.length) return -1;
        o = ((len & 0x3f) << 8) | b[o + 1]!;
        jumps++;
        continue;
      }
      if (len > 63 || o + 1 + len > b.length || n + 1 + len > KEY_MAX) return -1;
      s[n++] = len;
      for (let i = o + 1; i <= o + len; i++) {
        const c = b[i]!;
        s[n++] = c >= 65 && c <= 90 ? c + 32 : c;
      }
      o += 1 + len;
    }
    return -1;
  }
}

// A KeyTrap RRset (CVE-2023-50387): many DNSKEYs that share one key tag and many RRSIGs with that tag,
// none valid, so a validator that tries every signature with every key does keys × signatures RSA
// verifications. The keys are RSA moduli of random bytes whose last two bytes are chosen to give the tag.
import { randomBytes } from "node:crypto";
import { parseDnskey, type Dnskey } from "../crypto.ts";
import { nameFromText } from "../names.ts";
import type { RRset } from "../records.ts";

export const TRAP_TAG = 4242;

/** RFC 4034 Appendix B, folded. */
function tagOf(rdata: Uint8Array): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  return (ac + ((ac >> 16) & 0xffff)) & 0xffff;
}

/** `n` RSA DNSKEYs (flags 256, algorithm 8, `bits`-bit fake moduli) with key tag TRAP_TAG. */
export function trapKeys(n: number, bits = 4096): Dnskey[] {
  const out: Dnskey[] = [];
  while (out.length < n) {
    const mod = randomBytes(bits / 8);
    mod[0]! |= 0x80;
    const rdata = new Uint8Array([1, 0, 3, 8, 3, 1, 0, 1, ...mod]);
    // the last two bytes add (hi << 8 | lo) to the sum: pick them to land on the tag
    for (let x = 0; x < 65536; x++) {
      rdata[rdata.length - 2] = x >> 8;
      rdata[rdata.length - 1] = x & 0xff;
      if (tagOf(rdata) === TRAP_TAG) break;
    }
    const k = parseDnskey(rdata);
    if (k?.key && k.tag === TRAP_TAG) out.push(k);
  }
  return out;
}

/** www.trap.test A with `n` RRSIGs by trap.test, key tag TRAP_TAG, valid in time, with signatures of random bytes. */
export function trapRrset(n: number, now: number, bits = 4096): RRset {
  const owner = nameFromText("www.trap.test")!;
  const signer = nameFromText("trap.test")!;
  const rr = { owner, type: 1, cls: 1, ttl: 300, rdata: Uint8Array.of(192, 0, 2, 1), section: 0 as const };
  const sigs = [];
  for (let i = 0; i < n; i++) {
    const head = new Uint8Array(18);
    const v = new DataView(head.buffer);
    v.setUint16(0, 1); // type covered: A
    head[2] = 8;
    head[3] = 3;
    v.setUint32(4, 300);
    v.setUint32(8, now + 86400);
    v.setUint32(12, now - 3600);
    v.setUint16(16, TRAP_TAG);
    const sig = randomBytes(bits / 8);
    sig[0]! &= 0x7f; // below the modulus, so each check is a full RSA operation
    const rdata = new Uint8Array([...head, ...signer, ...sig]);
    sigs.push({ owner, type: 46, cls: 1, ttl: 300, rdata, section: 0 as const });
  }
  return { owner, type: 1, rrs: [rr], sigs };
}

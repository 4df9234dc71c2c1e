// NSEC3 owner names as the tests' signed zones make them (RFC 5155), to pick a name whose hash falls in a
// range a proof covered.
import { nsec3Hash as hashOf } from "../../src/dns/dnssec/denial.ts";
import { nameFromText } from "../../src/dns/dnssec/names.ts";

/** RFC 5155 §5's hash of `name` as nsec3.test is signed (dnssec-hierarchy.sh: SHA-1, salt 0a0b, 1 extra iteration), in base32hex. */
export function nsec3Hash(name: string): string {
  return base32hex(Buffer.from(hashOf(nameFromText(name.toLowerCase())!, Buffer.from("0a0b", "hex"), 1)));
}

/** RFC 4648 §7 without padding, lowercase: it keeps the order of the bytes, as NSEC3 owner names do. */
export function base32hex(b: Buffer): string {
  const abc = "0123456789abcdefghijklmnopqrstuv";
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of b) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += abc[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += abc[(value << (5 - bits)) & 31];
  return out;
}

// Trust anchors (dns.trustAnchors): DS records in zone-file syntax, "<owner> [TTL] [IN] DS <tag> <alg>
// <digest type> <hex digest>" (RFC 4034 §5.3); the default (the IANA root's KSKs) is in src/config/schema.ts.
import type { Ds } from "./crypto.ts";
import { nameFromText } from "./names.ts";

export interface Anchor extends Ds {
  owner: Uint8Array;
}

/** One anchor line read, or why it cannot be. */
export function parseAnchor(line: string): Anchor | string {
  const t = line.trim().split(/\s+/);
  const owner = nameFromText(t.shift() ?? "");
  if (!owner) return "not a domain name";
  if (/^\d+$/.test(t[0] ?? "")) t.shift(); // TTL
  if (t[0]?.toUpperCase() === "IN") t.shift();
  if (t.shift()?.toUpperCase() !== "DS") return 'expected "DS" after the owner';
  const [tag, alg, type] = t.slice(0, 3).map(Number);
  const hex = t.slice(3).join("");
  if (
    !Number.isInteger(tag) ||
    tag! > 65535 ||
    !Number.isInteger(alg) ||
    alg! > 255 ||
    !Number.isInteger(type) ||
    type! > 255
  )
    return "key tag, algorithm and digest type must be numbers";
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return "the digest must be hexadecimal";
  return { owner, tag: tag!, algorithm: alg!, digestType: type!, digest: Buffer.from(hex, "hex") };
}

// Trust anchors (dns.trustAnchors): DS records in zone-file syntax, "<owner> [TTL] [IN] DS <tag> <alg>
// <digest type> <hex digest>" (RFC 4034 §5.3). The default is the IANA root's KSKs from
// https://data.iana.org/root-anchors/root-anchors.xml: KSK-2017 (20326) and KSK-2024 (38696).
import type { Ds } from "./crypto.ts";
import { nameFromText } from "./names.ts";

export const IANA_ROOT_ANCHORS = [
  ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D",
  ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16",
];

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

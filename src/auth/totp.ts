// RFC 6238 TOTP as Pi-hole uses it: HMAC-SHA1, 6 digits, 30 s steps from T0 = 0, base32 secrets of
// 20 bytes, codes accepted from one step before to one step after now.
import { createHmac } from "node:crypto";

export const TOTP_DIGITS = 6;
export const TOTP_PERIOD = 30;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** null when the text is not base32 */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

export function totpAt(secret: Uint8Array, unixSeconds: number): number {
  const counter = Math.floor(unixSeconds / TOTP_PERIOD);
  const msg = Buffer.alloc(8);
  msg.writeUInt32BE(Math.floor(counter / 0x100000000), 0);
  msg.writeUInt32BE(counter >>> 0, 4);
  const mac = createHmac("sha1", secret).update(msg).digest();
  const off = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[off]! & 0x7f) << 24) | (mac[off + 1]! << 16) | (mac[off + 2]! << 8) | mac[off + 3]!;
  return bin % 10 ** TOTP_DIGITS;
}

/** Whether `code` is the code of the step before, at or after `now`. */
export function totpMatches(secret: Uint8Array, code: number, now: number): boolean {
  for (const d of [-1, 0, 1]) if (totpAt(secret, now + d * TOTP_PERIOD) === code) return true;
  return false;
}

/** The code for now as a 6-digit string (`moat totp`), or null without a usable secret. */
export function currentTotp(secretB32: string): string | null {
  const secret = secretB32 === "" ? null : base32Decode(secretB32);
  if (!secret || secret.length === 0) return null;
  return String(totpAt(secret, Date.now() / 1000)).padStart(TOTP_DIGITS, "0");
}

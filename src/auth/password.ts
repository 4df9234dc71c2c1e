// The stored password format, shared with Pi-hole FTL: `$BALLOON-SHA256$v=1$s=1024,t=32$<salt>$<hash>`
// (standard base64 with padding, 16-byte salt, 32-byte hash), and Pi-hole v5's legacy
// sha256(hex(sha256(pw))) hex digests, which verify and are then upgraded by the caller.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { balloonSha256 } from "./balloon.ts";
import { balloonAsync } from "./balloon-worker.ts";

const ALG = "BALLOON-SHA256";
const S_COST = 1024;
const T_COST = 32;
const SALT_LEN = 16;
const HASH_LEN = 32;
const utf8 = new TextEncoder();

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

const b64 = (u: Uint8Array) => Buffer.from(u).toString("base64");

/** Hashes a plain password into the stored Balloon form (the config store and the CLI call this). */
export function hashPassword(plain: string, salt: Uint8Array = randomBytes(SALT_LEN)): string {
  const hash = balloonSha256(utf8.encode(plain), salt, S_COST, T_COST);
  return `$${ALG}$v=1$s=${S_COST},t=${T_COST}$${b64(salt)}$${b64(hash)}`;
}

interface Phc {
  s: number;
  t: number;
  salt: Uint8Array;
  hash: Uint8Array;
}

const PHC = /^\$([^$]+)\$v=(\d+)\$s=(\d+),t=(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})\$?$/;

export function parsePhc(stored: string): Phc | null {
  const m = PHC.exec(stored);
  if (!m || m[1] !== ALG || m[2] !== "1") return null;
  const s = Number(m[3]);
  const t = Number(m[4]);
  // bounded so a hand-edited hash cannot make every login take minutes
  if (s < 1 || s > 65536 || t < 1 || t > 1024) return null;
  const salt = new Uint8Array(Buffer.from(m[5]!, "base64"));
  const hash = new Uint8Array(Buffer.from(m[6]!, "base64"));
  if (salt.length !== SALT_LEN || hash.length !== HASH_LEN) return null;
  return { s, t, salt, hash };
}

function isLegacyHash(stored: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(stored);
}

export function legacyHash(plain: string): string {
  const inner = createHash("sha256").update(plain).digest("hex");
  return createHash("sha256").update(inner).digest("hex");
}

export type Verdict = "correct" | "legacy" | "incorrect";

// A process-random key for remembering the last passwords that verified, so a burst of logins with
// the same correct password (a dashboard opening many tabs, scripts logging in per command) costs
// one Balloon run instead of one each. Only an HMAC under this key is kept, never the password.
const MEMO_KEY = randomBytes(32);
const memo = new Map<string, Buffer>();
const memoMac = (plain: string) => createHmac("sha256", MEMO_KEY).update(plain).digest();
/** Balloon runs under way, by stored hash + HMAC of the candidate: equal logins share one run. */
const inflight = new Map<string, Promise<Verdict>>();

function remember(stored: string, mac: Buffer): void {
  if (memo.size > 8) memo.clear();
  memo.set(stored, mac);
}

/**
 * The verdict when it needs no Balloon run (a remembered password, a legacy or unusable hash),
 * else null. Empty stored hash: never correct.
 */
export function verifyPasswordFast(plain: string, stored: string): Verdict | null {
  if (stored === "") return "incorrect";
  if (stored.startsWith("$")) {
    const known = memo.get(stored);
    if (known && timingSafeEqual(known, memoMac(plain))) return "correct";
    return parsePhc(stored) ? null : "incorrect";
  }
  if (!isLegacyHash(stored)) return "incorrect";
  const a = Buffer.from(legacyHash(plain), "hex");
  const b = Buffer.from(stored.toLowerCase(), "hex");
  return timingSafeEqual(a, b) ? "legacy" : "incorrect";
}

function compare(plain: string, stored: string, got: Uint8Array, phc: Phc): Verdict {
  if (!timingSafeEqual(Buffer.from(got), Buffer.from(phc.hash))) return "incorrect";
  remember(stored, memoMac(plain));
  return "correct";
}

/** Synchronous check (tests, tools). */
export function verifyPassword(plain: string, stored: string): Verdict {
  const fast = verifyPasswordFast(plain, stored);
  if (fast !== null) return fast;
  const phc = parsePhc(stored)!;
  return compare(plain, stored, balloonSha256(utf8.encode(plain), phc.salt, phc.s, phc.t), phc);
}

const inflightKey = (plain: string, stored: string) => `${stored}\0${memoMac(plain).toString("hex")}`;

/** The check with the Balloon run on the worker thread; equal concurrent checks share one run. */
export function verifyPasswordAsync(plain: string, stored: string): Promise<Verdict> {
  const fast = verifyPasswordFast(plain, stored);
  if (fast !== null) return Promise.resolve(fast);
  const key = inflightKey(plain, stored);
  let p = inflight.get(key);
  if (!p) {
    const phc = parsePhc(stored)!;
    p = balloonAsync(utf8.encode(plain), phc.salt, phc.s, phc.t)
      .then((got) => compare(plain, stored, got, phc))
      .finally(() => inflight.delete(key));
    inflight.set(key, p);
  }
  return p;
}

/** hashPassword with the Balloon run on the worker thread. */
export async function hashPasswordAsync(plain: string): Promise<string> {
  const salt = randomBytes(SALT_LEN);
  const hash = await balloonAsync(utf8.encode(plain), salt, S_COST, T_COST);
  return `$${ALG}$v=1$s=${S_COST},t=${T_COST}$${b64(salt)}$${b64(hash)}`;
}

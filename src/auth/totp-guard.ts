// Checking the 2FA token of a main-password login (RFC 6238 codes, totp.ts): at most one check a
// second per client, and a code that was accepted once is not accepted again (RFC 6238 §5.2).
import { clientKey } from "./client-key.ts";
import { base32Decode, totpMatches } from "./totp.ts";

/** Why a token was refused: none sent, a second check within a second, the last accepted code, or wrong. */
export type TotpRefusal = "missing" | "rate-limited" | "reused" | "invalid";

/** Clients remembered at most; beyond it those not checked this second are forgotten. */
const MAX_CLIENTS = 4096;

export class TotpGuard {
  private lastAccepted: number | null = null;
  /** when each client (clientKey) last had a token checked */
  private readonly checkedAt = new Map<string, number>();

  /** Null when `token` is the code of now for the base32 `secret`, else why not. */
  check(secretB32: string, token: unknown, ip: string): TotpRefusal | null {
    const secret = base32Decode(secretB32);
    if (token === undefined || token === null || token === "") return "missing";
    const t = Date.now() / 1000;
    const key = clientKey(ip);
    if (t - (this.checkedAt.get(key) ?? 0) < 1) return "rate-limited";
    if (this.checkedAt.size >= MAX_CLIENTS)
      for (const [k, at] of this.checkedAt) if (t - at >= 1) this.checkedAt.delete(k);
    this.checkedAt.set(key, t);
    const code = typeof token === "number" ? token : /^\s*\d{1,10}\s*$/.test(String(token)) ? Number(token) : NaN;
    if (code === this.lastAccepted) return "reused";
    if (!secret || !Number.isInteger(code) || !totpMatches(secret, code, t)) return "invalid";
    this.lastAccepted = code;
    return null;
  }
}

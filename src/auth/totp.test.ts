// TOTP on its own: the SHA-1 test vectors of RFC 6238 Appendix B (as 6-digit codes, the last six digits
// of the RFC's 8), base32 as RFC 4648 §10 spells it, and the window of one step either side of now.
import { afterEach, expect, setSystemTime, test } from "bun:test";
import { TOTP_PERIOD, base32Decode, base32Encode, currentTotp, totpAt, totpMatches } from "./totp.ts";

/** RFC 6238's SHA-1 seed: the ASCII bytes of "12345678901234567890" */
const SEED = new TextEncoder().encode("12345678901234567890");

afterEach(() => setSystemTime());

test("RFC 6238 Appendix B: the SHA-1 codes", () => {
  const vectors: Array<[number, string]> = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    // a time past 2^32 seconds (the year 2603)
    [20000000000, "65353130"],
  ];
  for (const [t, code8] of vectors) expect([t, totpAt(SEED, t)]).toEqual([t, Number(code8.slice(2))]);
});

test("codes are the same for every second of a 30-second step", () => {
  expect(totpAt(SEED, 30)).toBe(totpAt(SEED, 59));
  expect(totpAt(SEED, 59)).not.toBe(totpAt(SEED, 60));
});

test("base32 (RFC 4648 §10), written without padding, read with or without it", () => {
  const vectors: Array<[string, string]> = [
    ["", ""],
    ["f", "MY"],
    ["fo", "MZXQ"],
    ["foo", "MZXW6"],
    ["foob", "MZXW6YQ"],
    ["fooba", "MZXW6YTB"],
    ["foobar", "MZXW6YTBOI"],
  ];
  for (const [plain, b32] of vectors) {
    expect(base32Encode(new TextEncoder().encode(plain))).toBe(b32);
    expect(new TextDecoder().decode(base32Decode(b32)!)).toBe(plain);
  }
  expect(new TextDecoder().decode(base32Decode("mzxw 6yq=")!)).toBe("foob");
  const secret = crypto.getRandomValues(new Uint8Array(20));
  expect(base32Decode(base32Encode(secret))).toEqual(secret);
  // 0, 1, 8 and 9 are not in the alphabet
  for (const bad of ["MZXW0", "MZXW1", "8A", "9A", "MZ-XW"]) expect(base32Decode(bad)).toBeNull();
});

test("a code is accepted from one step before to one step after now, not further", () => {
  const now = 1_700_000_015;
  const at = (steps: number) => totpAt(SEED, now + steps * TOTP_PERIOD);
  const codes = [-2, -1, 0, 1, 2].map(at);
  // the window test below means something only if the five codes differ
  expect(new Set(codes).size).toBe(5);
  expect(totpMatches(SEED, at(-1), now)).toBe(true);
  expect(totpMatches(SEED, at(0), now)).toBe(true);
  expect(totpMatches(SEED, at(1), now)).toBe(true);
  expect(totpMatches(SEED, at(-2), now)).toBe(false);
  expect(totpMatches(SEED, at(2), now)).toBe(false);
});

test("currentTotp: the code for now, six digits with leading zeros; null without a usable secret", () => {
  const b32 = base32Encode(SEED);
  setSystemTime(new Date(1111111109 * 1000));
  expect(currentTotp(b32)).toBe("081804");
  setSystemTime(new Date(1234567890 * 1000));
  expect(currentTotp(b32)).toBe("005924");
  expect(currentTotp("")).toBeNull();
  expect(currentTotp("not base32!")).toBeNull();
  expect(currentTotp("====")).toBeNull();
});

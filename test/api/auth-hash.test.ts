// The password hash and TOTP building blocks against published vectors: nettle's Balloon test
// vectors (testsuite/balloon-test.c), RFC 6238 appendix B, and Pi-hole's stored-hash format.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { balloonSha256 } from "../../src/auth/balloon.ts";
import { hashPassword, legacyHash, parsePhc, verifyPassword } from "../../src/auth/password.ts";
import { base32Decode, base32Encode, totpAt, totpMatches } from "../../src/auth/totp.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");

test("Balloon-SHA256 reproduces nettle's test vectors", () => {
  const vectors: Array<[Uint8Array, Uint8Array, number, number, string]> = [
    [enc("hunter42"), enc("examplesalt"), 1024, 3, "716043dff777b44aa7b88dcbab12c078abecfac9d289c5b5195967aa63440dfb"],
    [enc(""), enc("salt"), 3, 3, "5f02f8206f9cd212485c6bdf85527b698956701ad0852106f94b94ee94577378"],
    [enc("password"), enc(""), 3, 3, "20aa99d7fe3f4df4bd98c655c5480ec98b143107a331fd491deda885c4d6a6cc"],
    [new Uint8Array(1), new Uint8Array(1), 3, 3, "4fc7e302ffa29ae0eac31166cee7a552d1d71135f4e0da66486fb68a749b73a4"],
    [enc("password"), enc("salt"), 1, 1, "eefda4a8a75b461fa389c1dcfaf3e9dfacbc26f81f22e6f280d15cc18c417545"],
    [enc("password"), enc("salt"), 3, 3, "a4df347f5a312e8b2b14c32164f61a81758c807f1bdcda44f4930e2b80ab2154"],
  ];
  for (const [pw, salt, s, t, want] of vectors) expect(hex(balloonSha256(pw, salt, s, t))).toBe(want);
}, 30000);

test("stored hashes have Pi-hole's PHC-like form and verify", () => {
  const salt = new Uint8Array(16).map((_, i) => i);
  const stored = hashPassword("s3cret", salt);
  expect(stored).toMatch(/^\$BALLOON-SHA256\$v=1\$s=1024,t=32\$AAECAwQFBgcICQoLDA0ODw==\$[A-Za-z0-9+/]{43}=$/);
  const phc = parsePhc(stored)!;
  expect(hex(phc.hash)).toBe(hex(balloonSha256(enc("s3cret"), salt, 1024, 32)));
  expect(verifyPassword("s3cret", stored)).toBe("correct");
  expect(verifyPassword("s3cret", stored)).toBe("correct"); // remembered
  expect(verifyPassword("S3cret", stored)).toBe("incorrect");
  expect(verifyPassword("", stored)).toBe("incorrect");
  expect(hashPassword("s3cret")).not.toBe(hashPassword("s3cret")); // random salt
  // malformed or foreign hashes never verify
  for (const bad of [
    "",
    "$BALLOON-SHA256$v=2$s=1024,t=32$AAECAwQFBgcICQoLDA0ODw==$x",
    "$ARGON2$v=1$s=1,t=1$AAAA$AAAA",
    "plain",
  ])
    expect(verifyPassword("s3cret", bad)).toBe("incorrect");
}, 30000);

test("legacy v5 double-SHA256 hashes verify (and are reported for upgrade)", () => {
  const inner = createHash("sha256").update("abc").digest("hex");
  const stored = createHash("sha256").update(inner).digest("hex");
  expect(legacyHash("abc")).toBe(stored);
  expect(verifyPassword("abc", stored)).toBe("legacy");
  expect(verifyPassword("abc", stored.toUpperCase())).toBe("legacy");
  expect(verifyPassword("abd", stored)).toBe("incorrect");
});

test("TOTP: RFC 6238 SHA1 vectors (6 digits), base32, the ±1 step window", () => {
  const secret = enc("12345678901234567890");
  expect(totpAt(secret, 59)).toBe(287082);
  expect(totpAt(secret, 1111111109)).toBe(81804);
  expect(totpAt(secret, 1234567890)).toBe(5924);
  expect(totpAt(secret, 20000000000)).toBe(353130);
  expect(base32Encode(secret)).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  expect(hex(base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")!)).toBe(hex(secret));
  expect(base32Decode("not base32!")).toBeNull();
  expect(totpMatches(secret, totpAt(secret, 1000 - 30), 1000)).toBe(true);
  expect(totpMatches(secret, totpAt(secret, 1000 + 30), 1000)).toBe(true);
  expect(totpMatches(secret, totpAt(secret, 1000 + 60), 1000)).toBe(false);
});

import { expect, test } from "bun:test";
import { keyBytes, keyHash, writeKey } from "./cache-key.ts";

test("cache key: the name, type, class, each of DO, CD and EDNS, and the group each make another key", () => {
  const www = Uint8Array.from([3, 119, 119, 119, 7, 101, 120, 97, 109, 112, 108, 101, 0]);
  const key = (...a: Parameters<typeof writeKey>) => {
    const n = writeKey(...a);
    return { bytes: [...keyBytes.subarray(0, n)].join(","), hash: keyHash(n) };
  };
  const base = key(www, 1, 1, false, false, true, 0);
  expect(key(www, 1, 1, false, false, true, 0)).toEqual(base);
  const others = [
    key(
      www.map((b, i) => (i === 1 ? 120 : b)),
      1,
      1,
      false,
      false,
      true,
      0,
    ),
    key(www, 28, 1, false, false, true, 0),
    key(www, 1, 3, false, false, true, 0),
    key(www, 1, 1, true, false, true, 0),
    key(www, 1, 1, false, true, true, 0),
    key(www, 1, 1, false, false, false, 0),
    key(www, 1, 1, false, false, true, 1),
    key(www, 1, 1, false, false, true, 256),
  ];
  const all = [base, ...others];
  expect(new Set(all.map((k) => k.bytes)).size).toBe(all.length);
  expect(new Set(all.map((k) => k.hash)).size).toBe(all.length);
  for (const k of all) expect(Number.isSafeInteger(k.hash) && k.hash >= 0).toBe(true);
});

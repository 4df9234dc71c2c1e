// Request bodies as every route reads them: JSON (or Pi-hole's lone `sid=` form), refused with the spec's
// 400 for what is not text, or for nesting no route needs and a recursive reader could not survive.
import { expect, test } from "bun:test";
import { decodeJsonBody } from "./body.ts";
import type { ApiError } from "./errors.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const refusal = (s: string): { status: number; hint: unknown } => {
  try {
    decodeJsonBody(enc(s));
  } catch (e) {
    return { status: (e as ApiError).status, hint: (e as ApiError).hint };
  }
  throw new Error(`accepted: ${s.slice(0, 40)}`);
};

test("JSON and the lone sid= form are read; an empty body is null", () => {
  expect(decodeJsonBody(enc('{"a":[1,{"b":"c"}]}'))).toEqual({ a: [1, { b: "c" }] });
  expect(decodeJsonBody(enc("sid=ab+c%2F"))).toEqual({ sid: "ab+c/" });
  expect(decodeJsonBody(enc("  "))).toBeNull();
});

test("nesting up to 1000 levels is read, deeper is a 400 that says why (arrays and objects alike)", () => {
  const arrays = (n: number) => "[".repeat(n) + "]".repeat(n);
  const objects = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
  expect(Array.isArray(decodeJsonBody(enc(arrays(1000))))).toBe(true);
  expect(typeof decodeJsonBody(enc(objects(1000)))).toBe("object");
  for (const deep of [arrays(1001), objects(1001), arrays(20_000)])
    expect(refusal(deep)).toEqual({ status: 400, hint: "nested deeper than 1000 levels" });
});

test("an unpaired surrogate, in a value or a key, and bytes that are not UTF-8 are refused", () => {
  expect(refusal('{"a":"\\ud800"}').status).toBe(400);
  expect(refusal('{"\\udfff":1}').status).toBe(400);
  expect(() => decodeJsonBody(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow();
  expect(decodeJsonBody(enc('{"a":"\\ud83d\\ude00"}'))).toEqual({ a: "😀" });
});

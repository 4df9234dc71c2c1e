// nameKey: a name's bytes as a string, one character per byte, for Map keys (names.ts).
import { expect, test } from "bun:test";
import { nameKey } from "./names.ts";

test("nameKey gives one character per byte of the view it is handed, every byte value kept apart", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const key = nameKey(all);
  expect(key.length).toBe(256);
  for (let i = 0; i < 256; i++) expect(key.charCodeAt(i)).toBe(i);
  // a view into a larger buffer: only its own bytes, from its own offset
  const name = new Uint8Array([9, 9, 3, 119, 119, 119, 4, 116, 101, 115, 116, 0, 7]);
  expect(nameKey(name.subarray(2, 12))).toBe("\x03www\x04test\x00");
  expect(nameKey(name.subarray(6, 12))).toBe("\x04test\x00");
  expect(nameKey(new Uint8Array(0))).toBe("");
});

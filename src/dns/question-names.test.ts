// The memo of question names (question-names.ts) on its own: a name comes back only for its own bytes,
// never for another name that lands in its slot.
import { expect, test } from "bun:test";
import { FNV_START, QuestionNames, fnvStep } from "./question-names.ts";

const hashOf = (b: Uint8Array) => b.reduce((h, c) => fnvStep(h, c), FNV_START);
const wire = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));

test("a kept name is found by its bytes, the same objects each time", () => {
  const m = new QuestionNames(16);
  const w = wire("\x01a\x07example\x00");
  expect(m.find(w, w.length, hashOf(w))).toBe(false);
  const own = w.slice();
  m.keep(own, "a.example", hashOf(w));
  expect(m.find(w, w.length, hashOf(w))).toBe(true);
  expect(m.wire).toBe(own);
  expect(m.name).toBe("a.example");
  // only the first `length` bytes of the scratch count: what lies after them is another query's
  const scratch = new Uint8Array(64).fill(7);
  scratch.set(w);
  expect(m.find(scratch, w.length, hashOf(w))).toBe(true);
});

test("another name in the same slots is a miss, also with the same length; the pair keeps the two newest", () => {
  // one pair of slots: every name lands in it, so only the bytes tell them apart
  const m = new QuestionNames(2);
  const a = wire("\x01a\x07example\x00"),
    b = wire("\x01b\x07example\x00");
  m.keep(a.slice(), "a.example", hashOf(a));
  expect(m.find(b, b.length, hashOf(b))).toBe(false);
  const shorter = wire("\x01a\x06exampl\x00");
  expect(m.find(shorter, shorter.length, hashOf(shorter))).toBe(false);
  m.keep(b.slice(), "b.example", hashOf(b));
  expect(m.find(a, a.length, hashOf(a))).toBe(true);
  expect(m.name).toBe("a.example");
  expect(m.find(b, b.length, hashOf(b))).toBe(true);
  expect(m.name).toBe("b.example");
  const c = wire("\x01c\x07example\x00");
  m.keep(c.slice(), "c.example", hashOf(c));
  expect(m.find(a, a.length, hashOf(a))).toBe(false);
  expect(m.find(b, b.length, hashOf(b))).toBe(true);
  expect(m.name).toBe("b.example");
  expect(m.find(c, c.length, hashOf(c))).toBe(true);
  expect(m.name).toBe("c.example");
});

import { expect, test } from "bun:test";
import * as packet from "dns-packet";
import { answerText } from "./answer-text.ts";

const reply = (answers: packet.Answer[]) =>
  new Uint8Array(
    packet.encode({ type: "response", id: 1, flags: 0, questions: [{ name: "q.test", type: "A" }], answers }),
  );

test("answerText: each record's type and data in order; none gives null", () => {
  const r = reply([
    { name: "q.test", type: "CNAME", ttl: 60, data: "t.test" },
    { name: "t.test", type: "A", ttl: 60, data: "192.0.2.1" },
    { name: "t.test", type: "AAAA", ttl: 60, data: "2001:db8::1" },
    { name: "t.test", type: "MX", ttl: 60, data: { preference: 10, exchange: "mx.test" } },
  ]);
  expect(answerText(r)).toBe("CNAME t.test, A 192.0.2.1, AAAA 2001:db8::1, MX 10 mx.test");
  expect(answerText(reply([]))).toBeNull();
});

test("answerText: a large answer is cut to a fixed size, so a row stays small", () => {
  const many = Array.from({ length: 100 }, (_, i) => ({ name: "q.test", type: "A", ttl: 60, data: `198.51.100.${i}` }));
  const text = answerText(reply(many as packet.Answer[]))!;
  expect(text.length).toBe(200);
  expect(text.startsWith("A 198.51.100.0, A 198.51.100.1")).toBe(true);
  expect(text.endsWith("…")).toBe(true);
});

import { expect, test } from "bun:test";
import * as packet from "dns-packet";
import { answerText } from "./answer-text.ts";
import { AnswerTextMemo } from "./answer-text-memo.ts";

const reply = (answers: packet.Answer[], qname = "q.test") =>
  new Uint8Array(
    packet.encode({ type: "response", id: 1, flags: 0, questions: [{ name: qname, type: "A" }], answers }),
  );
const a = (data: string, ttl = 60, name = "q.test"): packet.Answer => ({ name, type: "A", ttl, data });

test("memo: the same text as answerText for every kind of answer, and null where it gives null", () => {
  const memo = new AnswerTextMemo();
  const cases = [
    reply([
      { name: "q.test", type: "CNAME", ttl: 60, data: "T.Test" },
      { name: "t.test", type: "A", ttl: 60, data: "192.0.2.1" },
      { name: "t.test", type: "AAAA", ttl: 60, data: "2001:db8::1" },
      { name: "t.test", type: "MX", ttl: 60, data: { preference: 10, exchange: "mx.test" } },
      { name: "t.test", type: "TXT", ttl: 60, data: "hello" },
      { name: "t.test", type: "PTR", ttl: 60, data: "p.test" },
    ]),
    reply([]),
    reply(Array.from({ length: 100 }, (_, i) => a(`198.51.100.${i}`))),
    reply([a("192.0.2.1")]).subarray(0, 40), // cut inside its record: malformed
    new Uint8Array(5),
  ];
  for (let round = 0; round < 2; round++) for (const c of cases) expect(memo.text(c)).toBe(answerText(c) as string);
  expect(memo.text(cases[0]!)).toBe("CNAME t.test, A 192.0.2.1, AAAA 2001:db8::1, MX 10 mx.test, TXT, PTR p.test");
});

test("memo: a repeated answer is a hit, whatever its TTLs, owner name and the case of its names", () => {
  const memo = new AnswerTextMemo();
  const first = reply([{ name: "q.test", type: "CNAME", ttl: 300, data: "cdn.test" }, a("192.0.2.7", 300, "cdn.test")]);
  expect(memo.text(first)).toBe("CNAME cdn.test, A 192.0.2.7");
  expect(memo.hits).toBe(0);
  const later = reply(
    [{ name: "other.test", type: "CNAME", ttl: 12, data: "CDN.test" }, a("192.0.2.7", 11, "cdn.test")],
    "other.test",
  );
  expect(memo.text(later)).toBe("CNAME cdn.test, A 192.0.2.7");
  expect(memo.hits).toBe(1);
  expect(memo.size).toBe(1);
});

test("memo: another address or another target is a miss with its own text", () => {
  const memo = new AnswerTextMemo();
  expect(memo.text(reply([a("192.0.2.1")]))).toBe("A 192.0.2.1");
  expect(memo.text(reply([a("192.0.2.2")]))).toBe("A 192.0.2.2");
  // the target compressed against the question: the same pointer bytes name another host in each reply
  const cname = (q: string) => {
    const labels = q.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]);
    const question = [...labels, 0, 0, 1, 0, 1];
    const record = [0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xc0, 12];
    return Uint8Array.from([0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, ...question, ...record]);
  };
  expect(memo.text(cname("aa.test"))).toBe("CNAME aa.test");
  expect(memo.text(cname("bb.test"))).toBe("CNAME bb.test");
  expect(memo.hits).toBe(0);
  expect(memo.size).toBe(4);
});

test("memo: bounded, the oldest answer forgotten first", () => {
  const memo = new AnswerTextMemo(4);
  for (let i = 0; i < 10; i++) expect(memo.text(reply([a(`198.51.100.${i}`)]))).toBe(`A 198.51.100.${i}`);
  expect(memo.size).toBe(4);
  memo.text(reply([a("198.51.100.9")]));
  expect(memo.hits).toBe(1);
  memo.text(reply([a("198.51.100.0")]));
  expect(memo.hits).toBe(1);
});

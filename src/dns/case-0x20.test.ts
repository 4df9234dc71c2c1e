// The 0x20 helpers on their own: the answer a client gets carries its own letter case everywhere the
// upstream echoed our random one, and nothing else in the answer changes.
import { expect, test } from "bun:test";
import { CASE_LOST, EXACT, MISMATCH, questionMatch, randomCase, restoreCase } from "./case-0x20.ts";

const name = (s: string) => [...s.split(".").flatMap((l) => [l.length, ...[...l].map((c) => c.charCodeAt(0))]), 0];
/** header (ID 0x1234, one question) + question for `qname` type A class IN */
const query = (qname: string) => new Uint8Array([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...name(qname), 0, 1, 0, 1]);
const text = (b: Uint8Array) => new TextDecoder("latin1").decode(b);

test("randomCase changes only letters of the name, and questionMatch tells exact, case-lost and other names apart", () => {
  const q = query("www.example-1.com");
  const sent = new Uint8Array(q);
  // 12 letters: all lowercase again by chance once in 4096 draws, so ask until one has a capital
  for (let i = 0; i < 20 && text(sent) === text(q); i++) randomCase(sent, q.length);
  expect(text(sent)).not.toBe(text(q));
  expect(text(sent).toLowerCase()).toBe(text(q));
  expect(sent.subarray(q.length - 4)).toEqual(q.subarray(q.length - 4));
  expect(questionMatch(sent, sent, q.length)).toBe(EXACT);
  const lowered = new Uint8Array(sent.length);
  for (let i = 0; i < sent.length; i++) {
    const c = sent[i]!;
    lowered[i] = i >= 12 && i < q.length - 4 && c >= 65 && c <= 90 ? c | 0x20 : c;
  }
  expect(questionMatch(lowered, sent, q.length)).toBe(CASE_LOST);
  expect(questionMatch(query("www.example-2.com"), sent, q.length)).toBe(MISMATCH);
});

test("restoreCase puts the client's case back in the question and in owner names written out in full", () => {
  const clientQ = query("WwW.Example.com");
  const sent = new Uint8Array(clientQ);
  const randomName = name("wWw.eXAmPLE.cOm");
  sent.set(randomName, 12);
  const end = clientQ.length;
  // answer: the echoed question, then an A record whose owner is the full name in our random case,
  // then a CNAME-like record owned by another name that merely ends like ours
  const other = name("www.example.com.evil");
  const rdata = [0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1];
  const answer = new Uint8Array([...sent, ...randomName, ...rdata, ...other, ...rdata]);
  answer[2] = 0x81;
  const before = new Uint8Array(answer);
  restoreCase(answer, sent, clientQ, end);
  expect(text(answer.subarray(12, end))).toBe(text(clientQ.subarray(12, end)));
  expect(text(answer.subarray(end, end + randomName.length))).toBe(text(clientQ.subarray(12, end - 4)));
  // everything else is as the upstream sent it
  expect(answer.subarray(0, 12)).toEqual(before.subarray(0, 12));
  expect(answer.subarray(end + randomName.length)).toEqual(before.subarray(end + randomName.length));
});

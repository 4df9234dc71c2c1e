// The hand-made authorities of test/dns/recursive.test.ts: answers nsd cannot be made to give (a victim of an
// NXNS-style referral, an out-of-bailiwick injection, a DNAME with a CNAME that disagrees).
import * as packet from "dns-packet";

/** The question's end in a query (names in queries are not compressed). */
const questionEnd = (q: Uint8Array): number => {
  let o = 12;
  while (q[o]! !== 0) o += q[o]! + 1;
  return o + 5;
};
const rr = (name: number[], a: number[]): number[] => [...name, 0, 1, 0, 1, 0, 0, 1, 44, 0, 4, ...a];
const wire = (n: string): number[] => [...n.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]), 0];

/** victim.test: every name NXDOMAIN (authoritative) */
export function victimAnswer(q: Uint8Array): Uint8Array {
  const a = q.slice(0, questionEnd(q));
  a[2] = 0x84 | (q[2]! & 1);
  a[3] = 3;
  a[7] = a[9] = a[11] = 0;
  return a;
}

/** inject.test: the asked name's address, plus one for evil.plain.test and a "glue" for ns.plain.test */
export function injectAnswer(q: Uint8Array): Uint8Array {
  const end = questionEnd(q);
  const isA = q[end - 3] === 1;
  const head = [...q.subarray(0, end)];
  head[2] = 0x84;
  head[3] = 0;
  head[7] = isA ? 2 : 0;
  head[9] = 0;
  head[11] = isA ? 1 : 0;
  if (!isA) return Uint8Array.from(head);
  return Uint8Array.from([
    ...head,
    ...rr([0xc0, 12], [192, 0, 2, 66]),
    ...rr(wire("evil.plain.test"), [6, 6, 6, 6]),
    ...rr(wire("ns.plain.test"), [6, 6, 6, 6]),
  ]);
}

/** syn.test: c.old.syn.test gets its DNAME alone, c.forged.syn.test its DNAME with a CNAME that disagrees */
export function synAnswer(q: Uint8Array): Uint8Array {
  const query = packet.decode(Buffer.from(q));
  const question = query.questions![0]!;
  const name = question.name.toLowerCase();
  const zone = name.endsWith(".old.syn.test") ? "old.syn.test" : "forged.syn.test";
  const answers: packet.Answer[] = [];
  if (name.endsWith(`.${zone}`)) {
    answers.push({ name: zone, type: "DNAME", ttl: 300, data: "three.test" });
    if (zone.startsWith("forged"))
      answers.push({ name: question.name, type: "CNAME", ttl: 300, data: "www.plain.test" });
  }
  return packet.encode({
    id: query.id,
    type: "response",
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: [question],
    answers,
  });
}

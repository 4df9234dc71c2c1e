// The wire parser on its own (RFC 1035 §4, EDNS RFC 6891): what a query parses to, which packets are
// dropped or refused with which rcode, and the message walker's handling of compression pointers,
// pointer loops and messages cut short.
import { expect, test } from "bun:test";
import {
  CD,
  QR,
  RCODE,
  TYPE,
  WireError,
  expandName,
  findOption,
  getU32,
  parseQuery,
  readName,
  walkMessage,
} from "./wire.ts";
import { nameToWire } from "../net/dns-name.ts";

const u16 = (n: number) => [n >> 8, n & 255];
const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const header = (id: number, flags: number, qd: number, an: number, ns: number, ar: number) => [
  ...u16(id),
  ...u16(flags),
  ...u16(qd),
  ...u16(an),
  ...u16(ns),
  ...u16(ar),
];
/** "a.b" as labels, no compression, terminating zero included */
const name = (dotted: string) => [
  ...(dotted ? dotted.split(".") : []).flatMap((l) => [l.length, ...[...l].map((c) => c.charCodeAt(0))]),
  0,
];
/** an OPT pseudo-record (RFC 6891 §6.1.2) with its options' bytes */
const opt = (udpSize: number, version: number, dnssecOk: boolean, options: number[] = []) => [
  0,
  ...u16(TYPE.OPT),
  ...u16(udpSize),
  0,
  version,
  dnssecOk ? 0x80 : 0,
  0,
  ...u16(options.length),
  ...options,
];
const query = (dotted: string, qtype: number = TYPE.A, o: { flags?: number; additional?: number[][] } = {}) =>
  new Uint8Array([
    ...header(0x1234, o.flags ?? 0x0100, 1, 0, 0, o.additional?.length ?? 0),
    ...name(dotted),
    ...u16(qtype),
    ...u16(1),
    ...(o.additional ?? []).flat(),
  ]);

/** The rcode a refused packet is answered with, null for a dropped one; fails when the packet parses. */
function refusal(buf: Uint8Array): number | null {
  try {
    parseQuery(buf);
  } catch (e) {
    expect(e).toBeInstanceOf(WireError);
    return (e as WireError).rcode;
  }
  throw new Error("the packet parsed");
}

test("a query: its name lowercased, the labels' offsets, type, class and where the question ends", () => {
  const buf = query("WWW.Example.COM", TYPE.AAAA);
  const q = parseQuery(buf);
  expect(q.id).toBe(0x1234);
  expect(q.name).toBe("www.example.com");
  expect([...q.wire]).toEqual(name("www.example.com"));
  expect(q.labels).toEqual([0, 4, 12]);
  expect(q.qtype).toBe(TYPE.AAAA);
  expect(q.qclass).toBe(1);
  expect(q.end).toBe(buf.length);
  expect(q.edns).toBe(false);
  expect(q.udpSize).toBe(512);
  expect(q.optAt).toBe(-1);
  // the wire form is a copy: lowercasing it leaves the client's 0x20 spelling in the query
  expect(String.fromCharCode(...buf.subarray(13, 16))).toBe("WWW");
});

test("the root name and a name with bytes that need escaping", () => {
  expect(parseQuery(query("")).name).toBe("");
  expect(parseQuery(query("")).labels).toEqual([]);
  const odd = new Uint8Array([...header(1, 0, 1, 0, 0, 0), 3, 0x61, 0x2e, 0x20, 1, 0x5c, 0, ...u16(1), ...u16(1)]);
  expect(parseQuery(odd).name).toBe("a\\046\\032.\\092");
});

test("CD is read from the flags", () => {
  expect(parseQuery(query("a.b", TYPE.A, { flags: CD })).checkingDisabled).toBe(true);
  expect(parseQuery(query("a.b")).checkingDisabled).toBe(false);
});

test("EDNS: payload size (at least 512), version, DO bit and the options", () => {
  const cookie = [...u16(10), ...u16(8), 1, 2, 3, 4, 5, 6, 7, 8];
  const buf = query("a.b", TYPE.A, { additional: [opt(4096, 0, true, cookie)] });
  const q = parseQuery(buf);
  expect(q).toMatchObject({ edns: true, udpSize: 4096, ednsVersion: 0, dnssecOk: true, optLen: cookie.length });
  expect(findOption(buf, q, 10)).toEqual([q.optAt + 4, 8]);
  expect(findOption(buf, q, 8)).toBeNull();
  expect(parseQuery(query("a.b", TYPE.A, { additional: [opt(100, 1, false)] }))).toMatchObject({
    udpSize: 512,
    ednsVersion: 1,
    dnssecOk: false,
  });
});

test("size: where the message ends, before any bytes that follow its last record", () => {
  const plain = query("a.b", TYPE.A, { additional: [opt(1232, 0, false)] });
  expect(parseQuery(plain).size).toBe(plain.length);
  const extra = new Uint8Array([...plain, 0xde, 0xad, 0xbe, 0xef]);
  expect(parseQuery(extra).size).toBe(plain.length);
  const bare = query("a.b");
  expect(parseQuery(new Uint8Array([...bare, 1, 2, 3])).size).toBe(bare.length);
});

test("an option whose length runs past the OPT record is not found", () => {
  const buf = query("a.b", TYPE.A, { additional: [opt(1232, 0, false, [...u16(10), ...u16(50), 1, 2])] });
  expect(findOption(buf, parseQuery(buf), 10)).toBeNull();
});

test("packets that are dropped: short, or a response", () => {
  expect(refusal(new Uint8Array(11))).toBeNull();
  expect(refusal(query("a.b", TYPE.A, { flags: QR }))).toBeNull();
});

test("packets that are refused: other opcodes, other counts, bad or cut names", () => {
  expect(refusal(query("a.b", TYPE.A, { flags: 2 << 11 }))).toBe(RCODE.NOTIMP);
  const twoQuestions = query("a.b");
  twoQuestions[5] = 2;
  expect(refusal(twoQuestions)).toBe(RCODE.FORMERR);
  const withAnswer = query("a.b");
  withAnswer[7] = 1;
  expect(refusal(withAnswer)).toBe(RCODE.FORMERR);
  // a compression pointer in the question
  expect(refusal(new Uint8Array([...header(1, 0, 1, 0, 0, 0), 0xc0, 12, ...u16(1), ...u16(1)]))).toBe(RCODE.FORMERR);
  const whole = query("example.com");
  for (const cut of [13, 20, whole.length - 1]) expect(refusal(whole.subarray(0, cut))).toBe(RCODE.FORMERR);
  // 255 bytes is the most a name may have (RFC 1035 §2.3.4)
  const long = (n: number) => Array.from({ length: n }, () => "x".repeat(63)).join(".");
  expect(parseQuery(query(`${long(3)}.${"x".repeat(61)}`)).name.length).toBe(253);
  expect(refusal(query(long(4)))).toBe(RCODE.FORMERR);
});

test("additional records: two OPTs, or one cut short, are refused", () => {
  expect(refusal(query("a.b", TYPE.A, { additional: [opt(1232, 0, false), opt(1232, 0, false)] }))).toBe(RCODE.FORMERR);
  const one = query("a.b", TYPE.A, { additional: [opt(1232, 0, false, [...u16(10), ...u16(4), 1, 2, 3, 4])] });
  expect(refusal(one.subarray(0, one.length - 2))).toBe(RCODE.FORMERR);
});

test("nameToWire: lowercase labels, the trailing dot optional, invalid names refused", () => {
  expect([...nameToWire("A.b")!]).toEqual([1, 97, 1, 98, 0]);
  expect([...nameToWire("a.b.")!]).toEqual([1, 97, 1, 98, 0]);
  expect([...nameToWire("")!]).toEqual([0]);
  expect(nameToWire("a..b")).toBeNull();
  expect(nameToWire("x".repeat(64))).toBeNull();
  expect(nameToWire(Array.from({ length: 5 }, () => "x".repeat(63)).join("."))).toBeNull();
  expect(nameToWire("ä.example")).not.toBeNull();
  expect(nameToWire("€.example")).toBeNull();
});

/** A resource record of class IN (RFC 1035 §4.1.3); `owner` is its name's bytes, pointers included */
const record = (owner: number[], type: number, ttl: number, rdata: number[]) => [
  ...owner,
  ...u16(type),
  ...u16(1),
  ...u32(ttl),
  ...u16(rdata.length),
  ...rdata,
];

/**
 * An answer to "Example.com A": the question, two answers (the second's name a pointer to the
 * question's name, the first's a label and a pointer), one authority and one additional record.
 */
function answer(): Uint8Array {
  const toQuestion = [0xc0, 12];
  return new Uint8Array([
    ...header(0xbeef, 0x8183, 1, 2, 1, 1),
    ...[...name("Example.com"), ...u16(TYPE.A), ...u16(1)],
    ...record([3, 0x57, 0x57, 0x57, ...toQuestion], TYPE.A, 300, [192, 0, 2, 1]),
    ...record(toQuestion, TYPE.A, 0xffffffff, [192, 0, 2, 2]),
    ...record(toQuestion, TYPE.SOA, 60, [0, 0]),
    ...record([0], TYPE.OPT, 0, []),
  ]);
}

test("walkMessage: header fields, each record's type, TTL, rdata and section", () => {
  const buf = answer();
  const m = walkMessage(buf)!;
  expect(m).toMatchObject({ id: 0xbeef, flags: 0x8183, rcode: RCODE.NXDOMAIN, qdcount: 1, questionEnd: 12 + 13 + 4 });
  expect(m.records.map((r) => [r.type, r.ttl, r.rdlen, r.section, r.name])).toEqual([
    [TYPE.A, 300, 4, 0, null],
    [TYPE.A, 0xffffffff, 4, 0, null],
    [TYPE.SOA, 60, 2, 1, null],
    [TYPE.OPT, 0, 0, 2, null],
  ]);
  const first = m.records[0]!;
  expect([...buf.subarray(first.rdata, first.rdata + first.rdlen)]).toEqual([192, 0, 2, 1]);
  expect(getU32(buf, first.ttlAt)).toBe(300);
});

test("walkMessage with names: compression pointers followed, lowercased", () => {
  expect(walkMessage(answer(), true)!.records.map((r) => r.name)).toEqual([
    "www.example.com",
    "example.com",
    "example.com",
    "",
  ]);
});

test("walkMessage: every cut of a message is refused, not misread", () => {
  const buf = answer();
  for (let cut = 0; cut < buf.length; cut++) expect(walkMessage(buf.subarray(0, cut))).toBeNull();
  const moreRecords = answer();
  moreRecords[11] = 2;
  expect(walkMessage(moreRecords)).toBeNull();
});

test("readName: pointer loops, pointers out of the message and names over 255 bytes give null", () => {
  const self = new Uint8Array([...header(0, 0, 1, 0, 0, 0), 0xc0, 12]);
  expect(readName(self, 12)).toBeNull();
  const pingPong = new Uint8Array([...header(0, 0, 1, 0, 0, 0), 1, 0x61, 0xc0, 16, 1, 0x62, 0xc0, 12]);
  expect(readName(pingPong, 12)).toBeNull();
  expect(readName(new Uint8Array([...header(0, 0, 1, 0, 0, 0), 0xc0, 200]), 12)).toBeNull();
  expect(readName(new Uint8Array([...header(0, 0, 1, 0, 0, 0), 0xc0]), 12)).toBeNull();
  const long = Array.from({ length: 5 }, () => "x".repeat(63)).join(".");
  expect(readName(new Uint8Array([...header(0, 0, 1, 0, 0, 0), ...name(long)]), 12)).toBeNull();
  expect(readName(new Uint8Array([...header(0, 0, 1, 0, 0, 0), ...name(long.slice(0, 253))]), 12)).toBe(
    long.slice(0, 253),
  );
});

test("walkMessage: a record name with a reserved label type (0x40, 0x80: RFC 6891 §5) is refused", () => {
  for (const label of [0x41, 0x81])
    expect(
      walkMessage(new Uint8Array([...header(0, 0x8000, 0, 1, 0, 0), ...record([label, 0], TYPE.A, 1, [])])),
    ).toBeNull();
  expect(walkMessage(new Uint8Array([...header(0, 0x8000, 0, 1, 0, 0), ...record([0], TYPE.A, 1, [])]))).not.toBeNull();
});

test("expandName: follows pointers, lowercases on request, and refuses names over 255 bytes and pointer loops", () => {
  // "Www.Example.Test" at 0, then "a" + pointer to "Example.Test" at 4
  const buf = new Uint8Array([...name("Www.Example.Test"), 1, 97, 0xc0, 4, 0xc0, 22]);
  expect(expandName(buf, 0, false)).toEqual(new Uint8Array(name("Www.Example.Test")));
  expect(expandName(buf, 18, true)).toEqual(new Uint8Array(name("a.example.test")));
  expect(expandName(buf, 22, false)).toBeNull(); // a pointer to itself
  // four labels of 63 and one of 3: 4 * 64 + 4 + 1 = 261 bytes; with the last label 1 byte: 255
  const long = (last: string) =>
    new Uint8Array(name(`${["a", "b", "c", "d"].map((c) => c.repeat(63)).join(".")}.${last}`));
  expect(expandName(long("xyz"), 0, false)).toBeNull();
  const max = new Uint8Array(name(`${["a", "b", "c"].map((c) => c.repeat(63)).join(".")}.${"d".repeat(61)}`));
  expect(max.length).toBe(255);
  expect(expandName(max, 0, false)).toEqual(max);
  const over = new Uint8Array(name(`${["a", "b", "c"].map((c) => c.repeat(63)).join(".")}.${"d".repeat(62)}`));
  expect(over.length).toBe(256);
  expect(expandName(over, 0, false)).toBeNull();
  // the result is a copy of its own: a later call does not change it
  const first = expandName(buf, 0, true)!;
  expandName(buf, 18, false);
  expect(first).toEqual(new Uint8Array(name("www.example.test")));
});

test("parseQuery into a question no one holds: every field as a fresh parse's, none of the last query's left", () => {
  const opt = [0, ...u16(TYPE.OPT), ...u16(4096), 0, 0, 0x80, 0, ...u16(0)];
  const withEdns = Uint8Array.from([
    ...header(7, 0x0100 | CD, 1, 0, 0, 1),
    ...[3, 65, 68, 83, 7, 101, 120, 97, 109, 112, 108, 101, 3, 99, 111, 109, 0],
    ...u16(TYPE.AAAA),
    ...u16(1),
    ...opt,
  ]);
  const plain = Uint8Array.from([...header(9, 0x0100, 1, 0, 0, 0), 1, 98, 0, ...u16(TYPE.A), ...u16(1)]);
  const q = parseQuery(withEdns);
  const labels = q.labels;
  expect(parseQuery(plain, q)).toBe(q);
  expect(q).toEqual(parseQuery(plain));
  // the object and its labels array are the same ones, refilled (the engine's two objects fewer per query)
  expect(q.labels).toBe(labels);
  expect(q.labels).toEqual([0]);
  expect([q.edns, q.dnssecOk, q.checkingDisabled, q.optAt, q.udpSize, q.name]).toEqual([
    false,
    false,
    false,
    -1,
    512,
    "b",
  ]);
  expect(parseQuery(withEdns, q)).toEqual(parseQuery(withEdns));
});

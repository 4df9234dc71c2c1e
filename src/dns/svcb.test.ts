// SVCB rdata byte for byte (RFC 9460 §2.2: priority, uncompressed target, SvcParams in increasing key
// order as key/length/value; alpn §7.1.1, port §7.2, hints §7.3, dohpath RFC 9461 §5).
import { expect, test } from "bun:test";
import { svcbRecord } from "./svcb.ts";

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
const u16 = (n: number) => [n >> 8, n & 255];
/** one SvcParam: key, length, value */
const param = (key: number, value: number[]) => [...u16(key), ...u16(value.length), ...value];

test("a DoH designation: alpn, port, both hints and dohpath in key order", () => {
  const rr = svcbRecord(60, {
    priority: 2,
    target: "pi.hole",
    alpn: ["h2"],
    port: 443,
    ipv4: ["192.0.2.1"],
    ipv6: ["2001:db8::1"],
    dohpath: "/dns-query{?dns}",
  });
  expect([rr.type, rr.ttl, rr.owner]).toEqual([64, 60, undefined]);
  const v6 = [0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 1];
  expect([...rr.data]).toEqual([
    ...u16(2),
    ...[2, ...ascii("pi"), 4, ...ascii("hole"), 0],
    ...param(1, [2, ...ascii("h2")]),
    ...param(3, u16(443)),
    ...param(4, [192, 0, 2, 1]),
    ...param(6, v6),
    ...param(7, ascii("/dns-query{?dns}")),
  ]);
});

test("a DoT designation without hints: no empty hint keys", () => {
  const rr = svcbRecord(60, { priority: 1, target: "dns.example", alpn: ["dot"], port: 853, ipv4: [], ipv6: [] });
  expect([...rr.data]).toEqual([
    ...u16(1),
    ...[3, ...ascii("dns"), 7, ...ascii("example"), 0],
    ...param(1, [3, ...ascii("dot")]),
    ...param(3, u16(853)),
  ]);
});

import { expect, test } from "bun:test";
import * as E from "./cache-entry.ts";

const KEY = Uint8Array.from([3, 119, 119, 119, 0, 0, 1, 0, 1, 4, 0, 0]);

test("cache entry: every field, the key, the answer's bytes and its TTL positions come back as packed", () => {
  const answer = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
  const fields = {
    storedAt: 1_790_000_123_456.5,
    ttl: 86_400 * 7,
    reply: 4,
    upstreamBlocked: 23,
    dnssec: 1,
    upstream: 3,
  };
  const e = E.packEntry(answer, [40, 299, 65], fields, KEY, KEY.length);
  expect(E.storedAt(e)).toBe(1_790_000_123_456.5);
  expect([E.ttlOf(e), E.replyOf(e), E.upstreamBlockedOf(e), E.dnssecOf(e), E.upstreamOf(e)]).toEqual([
    604_800, 4, 23, 1, 3,
  ]);
  expect(e.slice(E.answerStart(e), E.answerEnd(e))).toEqual(answer);
  expect([E.ttlCount(e), E.ttlAt(e, 0), E.ttlAt(e, 1), E.ttlAt(e, 2)]).toEqual([3, 40, 299, 65]);
  expect(E.hasKey(e, KEY, KEY.length)).toBe(true);
  // another key: shorter, longer, or one byte off
  expect(E.hasKey(e, KEY, KEY.length - 1)).toBe(false);
  expect(E.hasKey(e, Uint8Array.from([...KEY, 0]), KEY.length + 1)).toBe(false);
  expect(
    E.hasKey(
      e,
      Uint8Array.from(KEY, (b, i) => (i === 5 ? b + 1 : b)),
      KEY.length,
    ),
  ).toBe(false);
  expect(E.refreshing(e)).toBe(false);
  E.setRefreshing(e, true);
  expect(E.refreshing(e)).toBe(true);
  E.setRefreshing(e, false);
  expect(E.refreshing(e)).toBe(false);
  // what the flag changed is only the flag
  expect(e.slice(E.answerStart(e), E.answerEnd(e))).toEqual(answer);
  expect(E.storedAt(e)).toBe(1_790_000_123_456.5);
  expect(E.hasKey(e, KEY, KEY.length)).toBe(true);
});

test("cache entry: none of the optional fields, no TTLs, and a message of the largest size", () => {
  const fields = { storedAt: 0, ttl: 0, reply: 0, upstreamBlocked: null, dnssec: 0, upstream: E.NO_UPSTREAM };
  const e = E.packEntry(new Uint8Array(65_535).fill(9), [], fields, KEY, KEY.length);
  expect([E.upstreamBlockedOf(e), E.upstreamOf(e), E.ttlCount(e), E.answerEnd(e) - E.answerStart(e)]).toEqual([
    null,
    E.NO_UPSTREAM,
    0,
    65_535,
  ]);
});

// The replies to blocked names (blocked.ts) on their own: the answer section an address block shares
// between queries follows the blocking TTL, the address and the question's family as they change.
import { expect, test } from "bun:test";
import * as packet from "dns-packet";
import { defaults } from "../config/schema.ts";
import type { QueryContext } from "./context.ts";
import { blockedReply } from "./blocked.ts";
import { parseQuery } from "./wire.ts";

function blocked(dns: ReturnType<typeof defaults>["dns"], type: "A" | "AAAA") {
  const query = new Uint8Array(
    packet.encode({ type: "query", id: 1, questions: [{ type, name: "ad.example", class: "IN" }] }),
  );
  const ctx = { query, q: parseQuery(query), client: "10.0.0.7" } as QueryContext;
  const answers = packet.decode(Buffer.from(blockedReply(ctx, dns, "gravity"))).answers ?? [];
  return answers as Array<{ type: string; ttl: number; data: unknown }>;
}

test("the default mode's records follow dns.blockTTL and the family asked", () => {
  const dns = defaults().dns;
  dns.blockTTL = 2;
  expect(blocked(dns, "A").map((a) => [a.type, a.ttl, a.data])).toEqual([["A", 2, "0.0.0.0"]]);
  expect(blocked(dns, "A").map((a) => a.ttl)).toEqual([2]);
  dns.blockTTL = 60;
  expect(blocked(dns, "A").map((a) => [a.type, a.ttl, a.data])).toEqual([["A", 60, "0.0.0.0"]]);
  expect(blocked(dns, "AAAA").map((a) => [a.type, a.ttl, a.data])).toEqual([["AAAA", 60, "::"]]);
  expect(blocked(dns, "A").map((a) => [a.type, a.ttl])).toEqual([["A", 60]]);
});

test("IP mode answers the configured address, and the new one once it changes", () => {
  const dns = defaults().dns;
  dns.blocking.mode = "IP";
  dns.reply.blocking.force4 = true;
  dns.reply.blocking.IPv4 = "192.0.2.7";
  expect(blocked(dns, "A").map((a) => a.data)).toEqual(["192.0.2.7"]);
  expect(blocked(dns, "A").map((a) => a.data)).toEqual(["192.0.2.7"]);
  dns.reply.blocking.IPv4 = "192.0.2.8";
  expect(blocked(dns, "A").map((a) => a.data)).toEqual(["192.0.2.8"]);
});

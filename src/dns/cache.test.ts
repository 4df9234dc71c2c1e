// The cache's background refresh of a stale answer (RFC 8767) outlives the query that started it: the
// stale answer is returned at once, so the engine refills that query's context and question for its next
// query (engine.ts, parseQuery's `into`). The refresh must go on with the question it was started for.
import { expect, test } from "bun:test";
import * as packet from "dns-packet";
import { Snapshot } from "../filter/snapshot.ts";
import { Status } from "../query/enums.ts";
import type { Answer, QueryContext } from "./context.ts";
import { DnsCache } from "./cache.ts";
import { parseQuery, walkMessage } from "./wire.ts";

const snapshot = Snapshot.empty({ list: [], buildWorker: "" });

const query = (name: string) =>
  new Uint8Array(
    packet.encode({ type: "query", id: 1, flags: packet.RECURSION_DESIRED, questions: [{ type: "A", name }] }),
  );

function answer(name: string): Uint8Array {
  return new Uint8Array(
    packet.encode({
      type: "response",
      id: 1,
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE,
      questions: [{ type: "A", name }],
      answers: [{ type: "A", name, ttl: 60, data: "192.0.2.1" }],
    }),
  );
}

function context(buf: Uint8Array): QueryContext {
  return {
    query: buf,
    q: parseQuery(buf),
    client: "10.0.0.1",
    clientId: null,
    tcp: false,
    start: 0,
    snapshot,
    status: 0,
    reply: 0,
    upstream: null,
    listId: null,
    ede: -1,
    cname: null,
    upstreamMessage: null,
    dnssec: 0,
    cnameChain: null,
    upstreamSet: 0,
    background: false,
  };
}

/** What the upstream does: answers the name it is asked, when the test says so. */
function upstream() {
  const asked: QueryContext[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const next = (ctx: QueryContext): Promise<Answer> => {
    asked.push(ctx);
    return gate.then(() => {
      const a = answer(ctx.q.name);
      ctx.upstreamMessage = walkMessage(a);
      ctx.upstream = "192.0.2.53#53";
      ctx.status = Status.FORWARDED;
      return a;
    });
  };
  return { asked, next, release };
}

test("a stale hit's refresh asks and stores the name it was started for, while the engine reuses the question", async () => {
  let now = 1_000_000;
  const cache = new DnsCache(
    100,
    () => 3600,
    () => now,
  );
  const first = upstream();
  first.release();
  await cache.handle(context(query("stale.test")), first.next);

  now += 120_000; // past the TTL, within dns.cache.optimizer: served stale, one refresh
  const later = upstream();
  const ctx = context(query("stale.test"));
  const served = cache.handle(ctx, later.next);
  expect(served).toBeInstanceOf(Uint8Array);
  expect(ctx.status).toBe(Status.CACHE_STALE);
  // answered at once: the engine refills this context's question for its next query
  parseQuery(query("other.example"), ctx.q);
  expect(later.asked.length).toBe(1);
  expect(later.asked[0]!.q.name).toBe("stale.test");
  later.release();
  await Bun.sleep(0);
  await Bun.sleep(0);

  // the refreshed answer is stored under stale.test's key: a fresh hit, no upstream asked
  const check = upstream();
  const c = context(query("stale.test"));
  const hit = cache.handle(c, check.next);
  expect(hit).toBeInstanceOf(Uint8Array);
  expect(c.status).toBe(Status.CACHE);
  expect(check.asked.length).toBe(0);
  expect(cache.counters.inserted).toBe(2);
});

// How a replicated kind is stored in a real redis-server (src/fleet/kind-store.ts), without Moat nodes:
// a publish is a compare-and-set on version and epoch that sends only the delta; a node one version
// behind reads the delta, a node past the log or in another epoch gets the whole map; what a delta
// makes is checked against the publisher's hash; an older Moat's JSON blob reads as an empty store.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { KindStore } from "../../src/fleet/kind-store.ts";
import { RedisLink } from "../../src/fleet/redis-link.ts";
import { diff, hashOf, type StateMap } from "../../src/fleet/state-map.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";

let redis: RedisServer;
let link: RedisLink;
let store: KindStore;

beforeAll(async () => {
  redis = await startRedis();
  link = new RedisLink(redis.url, [], () => {});
  store = new KindStore(link);
});
afterAll(async () => {
  link?.close();
  await redis?.dispose();
});

const publish = (kind: string, onto: { version: number; epoch: string } | null, from: StateMap, to: StateMap) =>
  store.publish(kind, onto, "t", diff(from, to), hashOf(to));

test("seed, then deltas: one version behind reads the delta, the stored map follows, CAS on version and epoch", async () => {
  const v1: StateMap = { "domainlist/1": { domain: "a.test", enabled: 1 }, "group/0": { name: "Default" } };
  expect(await store.since("k1", null)).toBeNull();
  const h1 = await publish("k1", null, {}, v1);
  if (!h1) throw new Error("seed refused");
  // a second seed (a node that also saw an empty store) loses the race
  expect(await publish("k1", null, {}, { other: 1 })).toBe(0);
  const v2: StateMap = { ...v1, "domainlist/2": { domain: "b.test", enabled: 1 } };
  delete v2["group/0"];
  const h2 = await publish("k1", h1, v1, v2);
  if (!h2) throw new Error("delta refused");
  expect(h2.epoch).toBe(h1.epoch);
  // stale base, wrong epoch: refused
  expect(await publish("k1", h1, v1, { x: 1 })).toBe(0);
  expect(await publish("k1", { version: h2.version, epoch: "another life" }, v2, { x: 1 })).toBe(0);

  const behind = await store.since("k1", { version: h1.version, epoch: h1.epoch, base: v1 });
  expect(behind).toMatchObject({ via: "deltas", changed: 2, version: h2.version, hash: hashOf(v2) });
  expect(behind!.data).toEqual(v2);
  const known = await store.since("k1", { version: h2.version, epoch: h2.epoch, base: v2 });
  expect(known).toMatchObject({ via: "known", version: h2.version });
  // the map the script kept in Redis is the publisher's map: a joining node fetches it whole
  const joined = await store.since("k1", null);
  expect(joined).toMatchObject({ via: "whole", version: h2.version });
  expect(joined!.data).toEqual(v2);
  // only the delta went into the log
  const logged = redis.cli("XRANGE", "moat:fleet:deltas:k1", "-", "+");
  expect(logged).toContain("b.test");
  expect(logged).not.toContain("a.test");
});

test("the whole map when the log does not reach back, the epoch differs, or the deltas do not make the hash", async () => {
  let map: StateMap = { n: 0 };
  const first = await publish("k2", null, {}, map);
  if (!first) throw new Error("seed refused");
  let head = first;
  const versions: Array<[typeof head, StateMap]> = [];
  for (let i = 1; i <= 300; i++) {
    const next = { ...map, n: i, [`key/${i}`]: i };
    const h = await publish("k2", head, map, next);
    if (!h) throw new Error(`delta ${i} refused`);
    [head, map] = [h, next];
    versions.push([h, next]);
  }
  const [h1, v1] = versions[0]!;
  // 256 deltas are kept: a node at version 1 (of the 300) is past the log
  expect(Number(redis.cli("XLEN", "moat:fleet:deltas:k2"))).toBe(256);
  const second = Number(
    redis.cli("XRANGE", "moat:fleet:deltas:k2", "-", "+", "COUNT", "1").split("\n")[0]!.split("-")[0],
  );
  expect(second).toBeGreaterThan(first.version + 1);
  const past = await store.since("k2", { version: h1.version, epoch: h1.epoch, base: v1 });
  expect(past).toMatchObject({ via: "whole", version: head.version });
  expect(past!.data).toEqual(map);
  // within the log: deltas
  const [h290, v290] = versions[289]!;
  const near = await store.since("k2", { version: h290.version, epoch: h290.epoch, base: v290 });
  expect(near).toMatchObject({ via: "deltas", changed: 20, version: head.version, data: map });
  // another epoch: its versions mean nothing here
  expect(await store.since("k2", { version: head.version, epoch: "old", base: { n: -1 } })).toMatchObject({
    via: "whole",
    data: map,
  });
  // a base that is not what this node thinks it agreed on: the deltas do not make the stored hash
  const wrong = await store.since("k2", { version: head.version - 1, epoch: head.epoch, base: { n: -1 } });
  expect(wrong).toMatchObject({ via: "whole", data: map });
});

test("a counter lost on its own does not take a kind's versions backwards", async () => {
  const h1 = await publish("k5", null, {}, { a: 1 });
  if (!h1) throw new Error("seed refused");
  redis.cli("DEL", "moat:fleet:version");
  const h2 = await publish("k5", h1, { a: 1 }, { a: 2 });
  if (!h2) throw new Error("delta refused");
  expect(h2.version).toBe(h1.version + 1);
  expect(await store.since("k5", { version: h1.version, epoch: h1.epoch, base: { a: 1 } })).toMatchObject({
    via: "deltas",
    data: { a: 2 },
  });
});

test("an older Moat's JSON blob reads as an empty store; the first publish seeds a new epoch and drops it", async () => {
  redis.cli(
    "HSET",
    "moat:fleet:kind:k3",
    "version",
    "7",
    "node",
    "old",
    "at",
    "1",
    "hash",
    "x",
    "data",
    '{"a":1}',
    "epoch",
    "e-old",
  );
  expect(await store.head("k3")).toBeNull();
  expect(await store.since("k3", { version: 7, epoch: "e-old", base: { a: 1 } })).toBeNull();
  const h = await publish("k3", null, {}, { a: 2 });
  if (!h) throw new Error("seed refused");
  expect(h.epoch).not.toBe("e-old");
  expect(redis.cli("EXISTS", "moat:fleet:kind:k3")).toBe("0");
  expect((await store.since("k3", null))!.data).toEqual({ a: 2 });
});

test("values keep their exact text; many keys in one seed", async () => {
  const map: StateMap = { "dns.hosts": ["10.0.0.1 a.test"], s: 'é \u2028 "q" \\', z: null, e: {}, f: [] };
  for (let i = 0; i < 5000; i++) map[`domainlist/${i}`] = { domain: `d${i}.test`, enabled: 1, comment: null };
  const h = await publish("k4", null, {}, map);
  if (!h) throw new Error("seed refused");
  const got = await store.since("k4", null);
  expect(got!.data).toEqual(map);
  expect(hashOf(got!.data)).toBe(h.hash);
  const next = { ...map, s: "\ud83d\ude00", z: 0 };
  const h2 = await publish("k4", h, map, next);
  if (!h2) throw new Error("delta refused");
  expect((await store.since("k4", { version: h.version, epoch: h.epoch, base: map }))!).toMatchObject({
    via: "deltas",
    changed: 2,
    data: next,
  });
});

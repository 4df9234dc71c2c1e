// A change carries what changed: two real nodes on a real redis-server, the lists holding a few thousand
// entries. One new entry on n1 reaches n2 as a delta read from the log (n2 says so, and Redis sends n2 a
// small fraction of the stored map's bytes); a node that was away one version reads the delta too, and one
// whose versions the log no longer holds fetches the whole map (src/fleet/kind-store.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { fleetView, startNodes, untilDig } from "./helpers.ts";
import { until } from "../dns/helpers.ts";

const FWD = "192.0.2.75";
const ENTRIES = 3000;
let redis: RedisServer;
let up: Upstream;
let nodes: MoatProcess[] = [];

beforeAll(async () => {
  [redis, up] = await Promise.all([startRedis(), startUpstream({ addr: FWD })]);
  nodes = await startNodes(["n1", "n2"], { redis: redis.url, upstream: up.address });
}, 60000);
afterAll(async () => {
  await Promise.all([...nodes.map((n) => n.dispose()), up?.stop(), redis?.dispose()]);
});

/** bytes redis-server has sent to its clients so far (replies and notifications) */
const sentBytes = () => Number(/total_net_output_bytes:(\d+)/.exec(redis.cli("INFO", "stats"))![1]);

/** "lists version <v> from n1 applied (…)" on `node` for n1's current lists version */
async function appliedLine(n1: MoatProcess, node: MoatProcess): Promise<string> {
  const version = (await fleetView(n1)).kinds.lists.version as number;
  const line = new RegExp(`lists version ${version} from n1 applied \\(([^)]*)\\)`);
  return line.exec(await node.outputWith(line, 8000))?.[1] ?? "(no such line)";
}

test("one new entry on n1 reaches n2 as a delta, while Redis holds thousands of entries", async () => {
  const [n1, n2] = nodes as [MoatProcess, MoatProcess];
  const many = Array.from({ length: ENTRIES }, (_, i) => `bulk${i}.delta.test`);
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: many, comment: "bulk" })).status).toBe(201);
  await untilDig(n2, `bulk${ENTRIES - 1}.delta.test`, "0.0.0.0");
  // each entry is a row and its Default-group link
  expect(Number(redis.cli("HLEN", "moat:fleet:map:lists"))).toBeGreaterThan(2 * ENTRIES);
  const mapBytes = redis.cli("--raw", "HGETALL", "moat:fleet:map:lists").length;
  expect(mapBytes).toBeGreaterThan(200_000);

  const before = sentBytes();
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: "one.delta.test" })).status).toBe(201);
  await untilDig(n2, "one.delta.test", "0.0.0.0");
  expect(await appliedLine(n1, n2)).toBe("deltas from the log: 2 keys");
  // what Redis sent in the meantime (the delta, notifications, heartbeats) is far below one copy of the map
  expect(sentBytes() - before).toBeLessThan(mapBytes / 10);
});

test("a node away for one version reads the delta; one the log no longer reaches fetches the whole map", async () => {
  const [n1, n2] = nodes as [MoatProcess, MoatProcess];
  await n2.stop();
  expect((await call(n1, "POST", "/api/domains/deny/exact", { domain: "away.delta.test" })).status).toBe(201);
  await n2.start();
  await untilDig(n2, "away.delta.test", "0.0.0.0");
  expect(await appliedLine(n1, n2)).toBe("deltas from the log: 2 keys");

  await n2.stop();
  const published = (await fleetView(n1)).kinds.lists.version as number;
  expect((await call(n1, "DELETE", "/api/domains/deny/exact/away.delta.test")).status).toBe(204);
  // n1 publishes after its API has answered (a domain entry is in force within a few ms): the delta must be
  // in the log before the log is trimmed below
  await until(async () => (await fleetView(n1)).kinds.lists.version > published, 5000, "n1 published the delete");
  // the log keeps the last 256 deltas: as if n2 had been away for more than that
  redis.cli("XTRIM", "moat:fleet:deltas:lists", "MAXLEN", "0");
  await n2.start();
  await untilDig(n2, "away.delta.test", FWD);
  expect(await appliedLine(n1, n2)).toMatch(/^whole map fetched: \d+ keys$/);
  expect((await call(n2, "GET", "/api/domains")).json.domains.length).toBe(ENTRIES + 1);
});

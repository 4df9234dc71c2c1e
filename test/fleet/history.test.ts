// The fleet's query history in a real PostgreSQL 15: three nodes write their queries there in
// batches; /api/queries and /api/history on any node answer for the whole fleet, node=<name> for
// one node, node=local from the node's own log; PostgreSQL killed and restarted: DNS answers
// throughout, the API says the history cannot be reached, and the queries asked meanwhile arrive.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { startPostgres, type PostgresServer } from "../harness/postgres.ts";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { dig, startNodes } from "./helpers.ts";

const FWD = "192.0.2.73";
let redis: RedisServer;
let pg: PostgresServer;
let up: Upstream;
let nodes: MoatProcess[] = [];
const NAMES = ["n1", "n2", "n3"];

beforeAll(async () => {
  [redis, pg, up] = await Promise.all([startRedis(), startPostgres(), startUpstream({ addr: FWD })]);
  nodes = await startNodes(NAMES, { redis: redis.url, postgres: pg.url, upstream: up.address });
}, 60000);
afterAll(async () => {
  await Promise.all([...nodes.map((n) => n.dispose()), up?.stop(), redis?.dispose(), pg?.dispose()]);
});

const domainsOf = (r: { json: any }) => (r.json.queries as Array<{ domain: string }>).map((q) => q.domain);

test("queries of every node reach one history; node= narrows it; node=local is the node's own", async () => {
  for (const [i, n] of nodes.entries())
    for (let k = 0; k < 3; k++) expect(await dig(n, `q${k}.${NAMES[i]}.hist.test`)).toBe(FWD);
  await until(
    async () => domainsOf(await call(nodes[0]!, "GET", "/api/queries?domain=*.hist.test&length=100")).length === 9,
    10000,
    "nine queries in the fleet log",
  );
  const all = await call(nodes[1]!, "GET", "/api/queries?domain=*.hist.test&length=100");
  expect(all.status).toBe(200);
  expect(all.json.recordsFiltered).toBe(9);
  expect(domainsOf(all).sort()).toEqual(NAMES.flatMap((n) => [0, 1, 2].map((k) => `q${k}.${n}.hist.test`)).sort());
  const q = all.json.queries[0];
  expect(q).toMatchObject({
    type: "A",
    status: "FORWARDED",
    client: { ip: "127.0.0.1" },
    reply: { type: "IP" },
    upstream: up.address,
    answers: `A ${FWD}`,
  });
  const one = await call(nodes[0]!, "GET", "/api/queries?domain=*.hist.test&node=n3");
  expect(domainsOf(one).sort()).toEqual(["q0.n3.hist.test", "q1.n3.hist.test", "q2.n3.hist.test"]);
  // paging: two at a time, newest first, by cursor
  const p1 = await call(nodes[0]!, "GET", "/api/queries?domain=*.hist.test&length=2");
  const p2 = await call(nodes[0]!, "GET", `/api/queries?domain=*.hist.test&length=2&start=2&cursor=${p1.json.cursor}`);
  expect(p1.json.queries[0].id).toBeGreaterThan(p2.json.queries[0].id);
  const local = await call(nodes[2]!, "GET", "/api/queries?domain=*.hist.test&node=local");
  expect(domainsOf(local).sort()).toEqual(["q0.n3.hist.test", "q1.n3.hist.test", "q2.n3.hist.test"]);
  // history: the fleet's slot counts are the sum of the nodes'
  const total = (r: { json: any }) => (r.json.history as Array<{ total: number }>).reduce((s, x) => s + x.total, 0);
  const fleet = total(await call(nodes[0]!, "GET", "/api/history"));
  const per = await Promise.all(NAMES.map((n) => call(nodes[0]!, "GET", `/api/history?node=${n}`).then(total)));
  expect(fleet).toBe(per.reduce((a, b) => a + b, 0));
  expect(per.every((x) => x >= 3)).toBe(true);
  expect((await call(nodes[0]!, "GET", "/api/history")).json.history.length).toBe(145);
  // the long-term views over a range: the fleet, one node, this node's own database
  const from = Math.floor(Date.now() / 1000) - 3600;
  const to = Math.floor(Date.now() / 1000) + 60;
  const range = `from=${from}&until=${to}`;
  const sum = (await call(nodes[0]!, "GET", `/api/stats/database/summary?${range}`)).json;
  expect(sum.sum_queries).toBe(fleet);
  expect(sum.total_clients).toBe(1);
  expect((await call(nodes[0]!, "GET", `/api/stats/database/summary?${range}&node=n2`)).json.sum_queries).toBe(per[1]);
  expect(total(await call(nodes[1]!, "GET", `/api/history/database?${range}`))).toBe(fleet);
  expect(total(await call(nodes[1]!, "GET", `/api/history/database?${range}&node=n1`))).toBe(per[0]!);
  expect((await call(nodes[1]!, "GET", `/api/stats/database/summary?${range}&node=local`)).status).toBe(200);
  expect((await call(nodes[0]!, "GET", "/api/queries?type=NOPE")).status).toBe(400);
});

test("PostgreSQL killed: DNS answers, the API says so, and the queries arrive once it is back", async () => {
  const [n1, , n3] = nodes as [MoatProcess, MoatProcess, MoatProcess];
  await pg.kill();
  for (let k = 0; k < 3; k++) expect(await dig(n3, `down${k}.hist.test`)).toBe(FWD);
  const r = await call(n1, "GET", "/api/queries?domain=down*");
  expect(r.status).toBe(503);
  expect(r.json.error.key).toBe("fleet_unavailable");
  expect((await call(n3, "GET", "/api/queries?domain=down*.hist.test&node=local")).json.queries.length).toBe(3);
  await pg.start();
  await until(
    async () => {
      const x = await call(n1, "GET", "/api/queries?domain=down*.hist.test");
      return x.status === 200 && x.json.queries.length === 3;
    },
    15000,
    "the queries asked while PostgreSQL was down",
  );
});

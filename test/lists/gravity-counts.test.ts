// One number for "how many domains the block lists hold": the unique domains of the gravity table
// (Pi-hole's gravity_count). Gravity's output, the log, /api/stats/summary, /api/padd, /api/info/ftl
// and /metrics must all show it, with duplicates across lists, ABP entries and deny entries around.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call } from "./helpers.ts";

let moat: MoatProcess;
let lists: ReturnType<typeof Bun.serve>;

const LISTS: Record<string, string> = {
  // 4 lines kept: a, b, c, ABP d
  "/one.txt": "0.0.0.0 a.count.test\n0.0.0.0 b.count.test\nc.count.test\n||d.count.test^\nnot a domain!\n",
  // 3 lines kept, 2 of them already on /one.txt
  "/two.txt": "a.count.test\nb.count.test\ne.count.test\n",
};
const ROWS = 7;
const UNIQUE = 5;

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new Response(LISTS[new URL(req.url).pathname] ?? "", { status: LISTS[new URL(req.url).pathname] ? 200 : 404 }),
  });
  moat = await startMoat({ env: { FTLCONF_webserver_api_metricsToken: "t0ken" } });
});
afterAll(async () => {
  await moat?.dispose();
  lists?.stop(true);
});

test("gravity's output, the log, domains_being_blocked, gravity_size, database.gravity and /metrics agree", async () => {
  const url = (p: string) => `http://127.0.0.1:${lists.port}${p}`;
  expect(
    (await call(moat, "POST", "/api/lists?type=block", { address: [url("/one.txt"), url("/two.txt")] })).status,
  ).toBe(201);
  // deny entries are not list domains: they must not change the count
  expect(
    (await call(moat, "POST", "/api/domains/deny/exact", { domain: ["x.count.test", "y.count.test"] })).status,
  ).toBe(201);
  const run = await moat.api("/api/action/gravity", { method: "POST" });
  const text = await run.text();
  expect(text).toContain(`Number of gravity domains: ${ROWS} (${UNIQUE} unique domains)`);

  const db = new Database(join(moat.dataDir, "gravity.db"), { readonly: true });
  try {
    expect(db.query("SELECT COUNT(DISTINCT domain) AS n FROM gravity").get()).toEqual({ n: UNIQUE });
    expect(db.query("SELECT value FROM info WHERE property = 'gravity_count'").get()).toEqual({
      value: String(UNIQUE),
    });
  } finally {
    db.close();
  }
  expect(await moat.outputWith("gravity update finished")).toContain(
    `gravity update finished: ${UNIQUE} unique domains on block lists`,
  );
  const snapshotLine = new RegExp(
    `filter snapshot \\d+: ${UNIQUE} unique domains on block lists, 0 on allow lists, 2 exact`,
  );
  expect(await moat.outputWith(snapshotLine)).toMatch(snapshotLine);
  expect((await call(moat, "GET", "/api/stats/summary")).json.gravity.domains_being_blocked).toBe(UNIQUE);
  expect((await call(moat, "GET", "/api/padd")).json.gravity_size).toBe(UNIQUE);
  expect((await call(moat, "GET", "/api/info/ftl")).json.ftl.database.gravity).toBe(UNIQUE);
  const metrics = await (await moat.api("/metrics", { headers: { authorization: "Bearer t0ken" } })).text();
  expect(metrics).toMatch(new RegExp(`^moat_gravity_domains ${UNIQUE}$`, "m"));
});

// Which client entry a query belongs to, observed through real DNS queries sent from loopback
// aliases (127.0.0.0/8 needs no setup on Linux): the `:interface` entry (here `lo`, the interface
// the queries arrive on), a CIDR entry beating it, and the longest matching prefix winning.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "../dns/helpers.ts";
import { call } from "./helpers.ts";

const FWD = "192.0.2.44";
let moat: MoatProcess;
let up: Upstream;
let kids = 0;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" } });
  const g = await call(moat, "POST", "/api/groups", { name: "kids" });
  expect(g.status).toBe(201);
  kids = g.json.groups[0].id;
  // blocked for the kids group only, not for Default
  expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: "games.test", groups: [kids] })).status).toBe(
    201,
  );
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

const answer = async (from: string) => firstAddress(await ask(moat.dnsPort, "games.test", { from }));

/** every source's answer, once the snapshot with the last change is live */
async function settle(want: Record<string, string>): Promise<Record<string, string | null>> {
  const got: Record<string, string | null> = {};
  const deadline = Date.now() + 10_000;
  do {
    for (const from of Object.keys(want)) got[from] = await answer(from);
    if (Object.keys(want).every((k) => got[k] === want[k])) break;
    await Bun.sleep(100);
  } while (Date.now() < deadline);
  return got;
}

const BLOCKED = "0.0.0.0";

test("no entry: every loopback client is in Default and gets the name", async () => {
  expect(await settle({ "127.0.0.1": FWD, "127.0.0.2": FWD, "127.0.5.9": FWD })).toEqual({
    "127.0.0.1": FWD,
    "127.0.0.2": FWD,
    "127.0.5.9": FWD,
  });
});

test(":lo puts every client whose queries arrive on lo in its groups", async () => {
  expect((await call(moat, "POST", "/api/clients", { client: ":lo", groups: [kids] })).status).toBe(201);
  const want = { "127.0.0.1": BLOCKED, "127.0.0.2": BLOCKED, "127.0.5.9": BLOCKED };
  expect(await settle(want)).toEqual(want);
}, 20_000);

test("an address entry beats :lo, and the longest prefix wins among subnets", async () => {
  // 127.0.0.0/8 → Default only: now nobody on loopback is a kid
  expect((await call(moat, "POST", "/api/clients", { client: "127.0.0.0/8", groups: [0] })).status).toBe(201);
  let want: Record<string, string> = { "127.0.0.2": FWD, "127.0.5.9": FWD, "127.0.6.9": FWD };
  expect(await settle(want)).toEqual(want);
  // 127.0.5.0/24 → kids: inside it the /24 beats the /8
  expect((await call(moat, "POST", "/api/clients", { client: "127.0.5.0/24", groups: [kids] })).status).toBe(201);
  want = { "127.0.5.9": BLOCKED, "127.0.5.8": BLOCKED, "127.0.6.9": FWD, "127.0.0.2": FWD };
  expect(await settle(want)).toEqual(want);
  // 127.0.5.9 (a /32) → Default: the single address beats its /24
  expect((await call(moat, "POST", "/api/clients", { client: "127.0.5.9", groups: [0] })).status).toBe(201);
  want = { "127.0.5.9": FWD, "127.0.5.8": BLOCKED, "127.0.6.9": FWD };
  expect(await settle(want)).toEqual(want);
  // a /16 between them changes nothing for the /24 and /32, and catches the rest of 127.0.x
  expect((await call(moat, "POST", "/api/clients", { client: "127.0.0.0/16", groups: [kids] })).status).toBe(201);
  want = { "127.0.5.9": FWD, "127.0.5.8": BLOCKED, "127.0.6.9": BLOCKED, "127.1.0.1": FWD };
  expect(await settle(want)).toEqual(want);
  // removing the /8 leaves 127.1.0.1 to :lo again
  expect((await call(moat, "DELETE", `/api/clients/${encodeURIComponent("127.0.0.0/8")}`)).status).toBe(204);
  want = { "127.1.0.1": BLOCKED, "127.0.5.9": FWD };
  expect(await settle(want)).toEqual(want);
}, 30_000);

// Gravity across restarts and on its schedule: a finished run keeps blocking after the server
// restarts on the same data directory (from gravity.snapshot, and from the gravity table when the
// file is gone or no longer matches it), and a short gravity.updateInterval starts runs by itself.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "../dns/helpers.ts";
import { call } from "./helpers.ts";

const FWD = "192.0.2.45";
const LIST = "0.0.0.0 kept.life.test\nplain.life.test\n||abp.life.test^\n";
let lists: ReturnType<typeof Bun.serve>;
let hits = 0;
let up: Upstream;
let moat: MoatProcess;
const dataDir = mkdtempSync(join(tmpdir(), "moat-lifecycle-"));
const snapshotFile = join(dataDir, "gravity.snapshot");

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      hits++;
      return new Response(LIST);
    },
  });
  up = await startUpstream({ addr: FWD });
  moat = await startMoat({ dataDir, env: { FTLCONF_dns_upstreams: up.address, FTLCONF_dns_rateLimit_count: "0" } });
});
afterAll(async () => {
  await moat?.stop();
  await up?.stop();
  lists?.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

const address = () => `http://127.0.0.1:${lists.port}/list.txt`;
const answer = async (name: string) => firstAddress(await ask(moat.dnsPort, name));
const NAMES = ["kept.life.test", "plain.life.test", "abp.life.test", "deep.abp.life.test"];
const allBlocked = async () => (await Promise.all(NAMES.map(answer))).every((a) => a === "0.0.0.0");

async function eventually(fn: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return true;
    await Bun.sleep(100);
  }
  return fn();
}

const listStatus = async () =>
  (await call(moat, "GET", "/api/lists")).json.lists.find((l: { address: string }) => l.address === address());

test("a gravity run writes the snapshot file and blocks", async () => {
  expect((await call(moat, "POST", "/api/lists?type=block", { address: address() })).status).toBe(201);
  const r = await moat.api("/api/action/gravity", { method: "POST" });
  expect(await r.text()).toContain("Done");
  expect(existsSync(snapshotFile)).toBe(true);
  expect(await eventually(allBlocked, 10_000)).toBe(true);
  expect(await answer("life.test")).toBe(FWD); // only the ABP entry covers its subtree
}, 30_000);

test("after a restart the names are blocked at once, with no gravity run", async () => {
  const before = hits;
  await moat.restart();
  // the DNS listener opens only after the first snapshot is live: no waiting, no retries
  expect(await Promise.all(NAMES.map(answer))).toEqual(NAMES.map(() => "0.0.0.0"));
  expect(await answer("life.test")).toBe(FWD);
  expect(hits).toBe(before);
  expect(moat.output).not.toContain("gravity update started");
  expect(await moat.outputWith(/filter snapshot 1: /)).toMatch(/filter snapshot 1: 3 unique domains on block lists/); // kept, plain and the ABP entry
}, 30_000);

test("without the snapshot file (or with one that no longer matches) the gravity table is used", async () => {
  await moat.stop();
  rmSync(snapshotFile);
  await moat.start();
  expect(await Promise.all(NAMES.map(answer))).toEqual(NAMES.map(() => "0.0.0.0"));
  // rebuilt from the rows, and written again for the next start
  expect(existsSync(snapshotFile)).toBe(true);

  // a row removed behind Moat's back: the file's key no longer matches, so the table decides
  await moat.stop();
  const db = new Database(join(dataDir, "gravity.db"));
  db.run("DELETE FROM gravity WHERE domain = 'kept.life.test'");
  db.close();
  await moat.start();
  expect(await answer("kept.life.test")).toBe(FWD);
  expect(await answer("plain.life.test")).toBe("0.0.0.0");
}, 30_000);

test("a short gravity.updateInterval starts runs by itself", async () => {
  const before = hits;
  expect((await listStatus()).status).toBe(1); // the first run downloaded it
  const patch = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { gravity: { updateInterval: 2 } } }),
  });
  expect(patch.status).toBe(200);
  // a scheduled run fetched the list again (same content: status 2, unchanged) and restored the row
  expect(
    await eventually(
      async () => hits > before && (await listStatus()).status === 2 && (await answer("kept.life.test")) === "0.0.0.0",
      20_000,
    ),
  ).toBe(true);
  expect(await moat.outputWith("gravity update started (schedule)")).toContain("gravity update started (schedule)");
  const off = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { gravity: { updateInterval: 0 } } }),
  });
  expect(off.status).toBe(200);
}, 40_000);

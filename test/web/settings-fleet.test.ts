// The Settings page's fleet card on a node of a real two-node fleet (one redis-server): it lists
// both nodes as the API does, healthy, and marks the one holding the gravity lease.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { fleetView, startNodes } from "../fleet/helpers.ts";
import type { MoatProcess } from "../harness/moat.ts";
import { startRedis, type RedisServer } from "../harness/redis.ts";
import { eventually, launch, openPage, shot } from "./browser.ts";

let redis: RedisServer;
let nodes: MoatProcess[] = [];
let browser: Browser;

beforeAll(async () => {
  redis = await startRedis();
  nodes = await startNodes(["n1", "n2"], { redis: redis.url, upstream: "127.0.0.1#9" });
  browser = await launch();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([...nodes.map((n) => n.dispose()), redis?.dispose()]);
});

test("the fleet card lists the nodes the API lists, healthy, and who holds gravity", async () => {
  const [n1] = nodes as [MoatProcess];
  await eventually(
    async () => {
      const f = await fleetView(n1);
      return f.nodes.length === 2 && f.nodes.every((n: { healthy: boolean }) => n.healthy) && !!f.gravity.leader;
    },
    "both nodes seen and a gravity lease holder",
    20000,
  );
  const view = await fleetView(n1);
  for (const [size, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    const w = await openPage(browser, viewport);
    // no password on these nodes: the first-run setup is marked done so the page itself shows
    await w.page.goto(`${n1.base}/admin/settings`);
    await w.page.evaluate(() => {
      localStorage.setItem("moat.setup.done", "1");
      localStorage.setItem("moat.theme", "dark");
    });
    await w.page.reload();
    const rows = w.page.locator("[data-testid=fleet-nodes] tbody tr");
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);
    const text = (await w.page.textContent("[data-testid=fleet-nodes]")) ?? "";
    for (const n of view.nodes as Array<{ node: string }>) expect(text).toContain(n.node);
    expect(await w.page.locator("[data-testid=fleet-nodes] .badge:text('up')").count()).toBe(2);
    const leaderRow = rows.filter({ hasText: view.gravity.leader });
    expect(await leaderRow.locator(".badge:text('gravity')").count()).toBe(1);
    await w.page.locator("[data-testid=fleet-nodes]").scrollIntoViewIfNeeded();
    await shot(w.page, `settings-fleet-${size}-dark`);
    expect(w.errors).toEqual([]);
    await w.ctx.close();
  }
}, 60000);

// The schedule policy (src/policies/schedule/) against the real server: an open window blocks its services, everything
// but the allow list, or the block lists it schedules, for its group only; a window opens and closes at its minute.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { digA, dohA, FWD, t, useFamily } from "./family.ts";

useFamily();

/** a window of `minutes` from the local minute `offset` minutes from now */
function windowFrom(offset: number, minutes: number) {
  const startMs = Date.now() - (Date.now() % 60000) + offset * 60000;
  const hhmm = (ms: number) => {
    const d = new Date(ms);
    return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  };
  return { days: [new Date(startMs).getDay()], start: hhmm(startMs), end: hhmm(startMs + minutes * 60000), startMs };
}

describe("schedules", () => {
  test("PUT refuses a window that is not one and unknown services; no windows removes the schedule", async () => {
    const bad = { windows: [{ days: [1], start: "25:00", end: "07:00" }], services: [], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", bad)).status).toBe(400);
    const unknown = { windows: [{ days: [1], start: "21:00", end: "07:00" }], services: ["nope"], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", unknown)).status).toBe(400);
    const none = await call(t.moat, "PUT", "/api/schedules/groups/teens", {
      windows: [],
      services: [],
      everything: false,
    });
    expect(none.json.groups).toEqual([{ name: "teens", schedule: null }]);
    expect(typeof none.json.timezone).toBe("string");
  });

  test("an open window blocks the scheduled service for its group only (UDP and DoH), and a change applies at once", async () => {
    const { startMs: _, ...w } = windowFrom(-1, 5);
    const r = await call(t.moat, "PUT", "/api/schedules/groups/teens", {
      windows: [w],
      services: ["reddit"],
      everything: false,
    });
    expect(r.status).toBe(200);
    expect(r.json.groups[0].schedule.services).toEqual(["reddit"]);
    expect(await digA("www.reddit.com", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "blocked service: Reddit" });
    expect((await digA("www.reddit.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await dohA("old.reddit.com", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("old.reddit.com", "kid")).addr).toBe(FWD);
    expect((await digA("sched-other.test", "127.0.0.3")).addr).toBe(FWD);
    // everything but the allow list
    await call(t.moat, "PUT", "/api/schedules/groups/teens", { windows: [w], services: [], everything: true });
    expect(await digA("sched-other.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "schedule" });
    expect((await dohA("sched-other2.test", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("sched-other2.test", "kid")).addr).toBe(FWD);
    const teens = (await call(t.moat, "GET", "/api/groups/teens")).json.groups[0].id;
    await call(t.moat, "POST", "/api/domains/allow/exact", { domain: "homework.test", groups: [teens] });
    expect((await digA("homework.test", "127.0.0.3")).addr).toBe(FWD);
    // a window that is not open now
    const { startMs: __, ...later } = windowFrom(120, 5);
    await call(t.moat, "PUT", "/api/schedules/groups/teens", { windows: [later], services: [], everything: true });
    expect((await digA("sched-other3.test", "127.0.0.3")).addr).toBe(FWD);
  });

  test("a block list scheduled for a group applies to it only while its window is open", async () => {
    const file = join(t.moat.dataDir, "evening-list.txt");
    writeFileSync(file, "0.0.0.0 games.evening.test\n||arcade.evening.test^\n");
    const l = await call(t.moat, "POST", "/api/lists?type=block", { address: `file://${file}`, groups: [] });
    expect(l.status).toBe(201);
    const id = l.json.lists[0].id as number;
    const g = await t.moat.api("/api/action/gravity", { method: "POST" });
    expect(g.status).toBe(200);
    await g.text();
    // linked to no group: nobody is blocked by it
    expect((await digA("games.evening.test", "127.0.0.3")).addr).toBe(FWD);
    const { startMs: _, ...open } = windowFrom(-1, 5);
    const put = { windows: [open], services: [], lists: [id], everything: false };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", put)).status).toBe(200);
    expect(await digA("games.evening.test", "127.0.0.3")).toEqual({ addr: "0.0.0.0", ede: "gravity" });
    expect((await digA("www.arcade.evening.test", "127.0.0.3")).addr).toBe("0.0.0.0");
    expect((await digA("games.evening.test", "127.0.0.2")).addr).toBe(FWD);
    expect((await dohA("games.evening.test", "teen")).addr).toBe("0.0.0.0");
    expect((await dohA("games.evening.test", "kid")).addr).toBe(FWD);
    const { startMs: __, ...later } = windowFrom(120, 5);
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", { ...put, windows: [later] })).status).toBe(200);
    expect((await digA("games.evening.test", "127.0.0.3")).addr).toBe(FWD);
    const bad = { ...put, lists: [99999] };
    expect((await call(t.moat, "PUT", "/api/schedules/groups/teens", bad)).status).toBe(400);
  });

  test(
    "a window a minute wide opens and closes at its minutes without a restart",
    async () => {
      const { startMs, ...w } = windowFrom(1, 1);
      await call(t.moat, "PUT", "/api/schedules/groups/teens", {
        windows: [w],
        services: ["reddit"],
        everything: false,
      });
      expect((await digA("reddit.com", "127.0.0.3")).addr).toBe(FWD);
      await Bun.sleep(Math.max(0, startMs - Date.now()));
      await until(async () => (await digA("reddit.com", "127.0.0.3")).addr === "0.0.0.0", 5000, "the window to open");
      expect((await digA("reddit.com", "127.0.0.2")).addr).toBe(FWD);
      await Bun.sleep(Math.max(0, startMs + 60000 - Date.now()));
      await until(async () => (await digA("reddit.com", "127.0.0.3")).addr === FWD, 5000, "the window to close");
    },
    { timeout: 140000 },
  );
});

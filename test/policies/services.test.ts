// The blocked-services policy (src/policies/services/) against the real server: a group's services blocked over UDP
// and DNS over HTTPS with a client ID, for its clients only, named in the EDE and the query log.
import { describe, expect, test } from "bun:test";
import { call } from "../lists/helpers.ts";
import { until } from "../dns/helpers.ts";
import { digA, dohA, FWD, t, useFamily } from "./family.ts";

useFamily();

describe("blocked services", () => {
  test("GET /api/services lists the catalogue with each service's query-log list id", async () => {
    const r = await call(t.moat, "GET", "/api/services");
    expect(r.status).toBe(200);
    expect(r.json.services.length).toBeGreaterThanOrEqual(40);
    const tiktok = r.json.services.find((s: { id: string }) => s.id === "tiktok");
    expect(tiktok).toMatchObject({ name: "TikTok", category: "social", list_id: -2 });
    expect(tiktok.rules).toContain("||tiktok.com^");
  });

  test("PUT sets a group's services; unknown services and groups are refused", async () => {
    const r = await call(t.moat, "PUT", "/api/services/groups/kids", { services: ["tiktok", "youtube", "tiktok"] });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", services: ["tiktok", "youtube"] }]);
    expect((await call(t.moat, "GET", "/api/services/groups/kids")).json.groups[0].services).toEqual([
      "tiktok",
      "youtube",
    ]);
    const all = await call(t.moat, "GET", "/api/services/groups");
    expect(all.json.groups).toContainEqual({ name: "teens", services: [] });
    expect((await call(t.moat, "PUT", "/api/services/groups/kids", { services: ["nope"] })).status).toBe(400);
    expect((await call(t.moat, "PUT", "/api/services/groups/nobody", { services: ["tiktok"] })).status).toBe(404);
    expect((await call(t.moat, "GET", "/api/services/groups/nobody")).status).toBe(404);
  });

  test("UDP: the kids' client gets the block for the service's domains and below; the teens' client does not", async () => {
    for (const name of ["tiktok.com", "www.tiktok.com", "v16m.tiktokcdn.com", "i.ytimg.com"]) {
      expect({ name, ...(await digA(name, "127.0.0.2")) }).toEqual({
        name,
        addr: "0.0.0.0",
        ede: name.includes("ytimg") ? "blocked service: YouTube" : "blocked service: TikTok",
      });
      expect({ name, ...(await digA(name, "127.0.0.3")) }).toEqual({ name, addr: FWD, ede: null });
    }
    // not a service domain, and a name that only ends like one
    expect((await digA("nottiktok.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("example.test", "127.0.0.2")).addr).toBe(FWD);
  });

  test("DoH with a client ID: /dns-query/kid is blocked, /dns-query/teen is not", async () => {
    expect(await dohA("m.youtube.com", "kid")).toEqual({ addr: "0.0.0.0", ede: "blocked service: YouTube" });
    expect(await dohA("m.youtube.com", "teen")).toEqual({ addr: FWD, ede: null });
  });

  test("the query log shows the block as DENYLIST with the service's list id", async () => {
    await until(
      async () => {
        const r = await call(t.moat, "GET", "/api/queries?domain=www.tiktok.com");
        return r.json.queries.some(
          (q: { status: string; list_id: number | null; client: { ip: string } }) =>
            q.client.ip === "127.0.0.2" && q.status === "DENYLIST" && q.list_id === -2,
        );
      },
      10000,
      "the blocked query in the log",
    );
    const r = await call(t.moat, "GET", "/api/queries?domain=www.tiktok.com");
    const teen = r.json.queries.find((q: { client: { ip: string } }) => q.client.ip === "127.0.0.3");
    expect(teen?.status).not.toBe("DENYLIST");
  });

  test("the allow list beats a blocked service; an empty selection unblocks", async () => {
    const kids = (await call(t.moat, "GET", "/api/groups/kids")).json.groups[0].id;
    const a = await call(t.moat, "POST", "/api/domains/allow/exact", { domain: "allowed.tiktok.com", groups: [kids] });
    expect(a.status).toBe(201);
    expect((await digA("allowed.tiktok.com", "127.0.0.2")).addr).toBe(FWD);
    expect((await digA("other.tiktok.com", "127.0.0.2")).addr).toBe("0.0.0.0");
    expect((await call(t.moat, "PUT", "/api/services/groups/kids", { services: [] })).status).toBe(200);
    expect((await digA("other.tiktok.com", "127.0.0.2")).addr).toBe(FWD);
  });
});

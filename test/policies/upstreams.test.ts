// The per-group upstreams policy (src/policies/upstreams/) against the real server: a group's queries go to its own
// upstreams, no other group's do, and the cache keeps the groups' answers apart.
import { describe, expect, test } from "bun:test";
import { call } from "../lists/helpers.ts";
import { digA, dohA, FWD, FWD2, t, up, up2, useFamily } from "./family.ts";

useFamily();

describe("per-group upstreams", () => {
  test("PUT refuses an entry that is not an upstream; GET shows each group's", async () => {
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: ["not an address"] })).status).toBe(
      400,
    );
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/nobody", { upstreams: [] })).status).toBe(404);
    const r = await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: [up2.address] });
    expect(r.status).toBe(200);
    expect(r.json.groups).toEqual([{ name: "kids", upstreams: [up2.address] }]);
    expect((await call(t.moat, "GET", "/api/upstreams/groups")).json.groups).toContainEqual({
      name: "teens",
      upstreams: [],
    });
  });

  test("a group's queries go to its upstream and no others do; the cache keeps the groups' answers apart", async () => {
    // the teens' client first: its answer is cached, and must not reach the kids' client
    expect((await digA("grp-up.test", "127.0.0.3")).addr).toBe(FWD);
    expect((await digA("grp-up.test", "127.0.0.2")).addr).toBe(FWD2);
    expect((await digA("grp-up.test", "127.0.0.3")).addr).toBe(FWD);
    expect((await digA("grp-up.test", "127.0.0.2")).addr).toBe(FWD2);
    expect(up.count("grp-up.test")).toBe(1);
    expect(up2.count("grp-up.test")).toBe(1);
    // DoH with a client ID
    expect((await dohA("grp-up2.test", "kid")).addr).toBe(FWD2);
    expect((await dohA("grp-up2.test", "teen")).addr).toBe(FWD);
    // nothing but the kids' names reached the kids' upstream
    expect(new Set(up2.queries().map((q) => q.name))).toEqual(new Set(["grp-up.test", "grp-up2.test"]));
    // back to dns.upstreams
    expect((await call(t.moat, "PUT", "/api/upstreams/groups/kids", { upstreams: [] })).status).toBe(200);
    expect((await digA("grp-up3.test", "127.0.0.2")).addr).toBe(FWD);
  });
});

// Per-domain upstreams in dns.upstreams (AdGuard Home's `[/corp.example/]10.0.0.1`) and dns.upstreamMode
// (FASTEST, LOAD_BALANCE, PARALLEL), through real DNS to three real upstream processes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress } from "./helpers.ts";

let moat: MoatProcess;
let near: Upstream;
let far: Upstream;
let corp: Upstream;

const config = (dns: Record<string, unknown>) =>
  moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config: { dns } }) });

beforeAll(async () => {
  [near, far, corp] = await Promise.all([
    startUpstream({ addr: "192.0.2.1" }),
    // 30 ms farther than the near one: FASTEST sends it nothing once both are measured
    startUpstream({ addr: "192.0.2.2", delayMs: 30 }),
    startUpstream({ addr: "10.9.9.9" }),
  ]);
  const upstreams = [
    near.address,
    far.address,
    `[/corp.test/lab.test/]${corp.address}`,
    "[/public.corp.test/]#",
    `[/*.wild.test/]${corp.address}`,
  ];
  // in the file, not the environment, so the API may change them
  moat = await startMoat({ configToml: `[dns]\nupstreams = ${JSON.stringify(upstreams)}\n` });
});
afterAll(async () => {
  await moat?.dispose();
  await Promise.all([near?.stop(), far?.stop(), corp?.stop()]);
});

const general = (name: string) => near.count(name) + far.count(name);

test("a per-domain upstream answers the names under its domains, and only those", async () => {
  for (const name of ["corp.test", "host.corp.test", "a.b.lab.test", "x.wild.test"]) {
    expect(firstAddress(await ask(moat.dnsPort, name))).toBe("10.9.9.9");
    expect(corp.count(name)).toBe(1);
    expect(general(name)).toBe(0);
  }
  // the longest domain wins: `#` sends public.corp.test back to the general upstreams
  for (const name of ["www.public.corp.test", "elsewhere.test", "notcorp.test", "wild.test"]) {
    expect(firstAddress(await ask(moat.dnsPort, name))).not.toBe("10.9.9.9");
    expect(corp.count(name)).toBe(0);
    expect(general(name)).toBe(1);
  }
});

test("a malformed per-domain entry is refused with the reason, the list stays", async () => {
  for (const bad of ["[/bad domain/]127.0.0.1", "[/corp.test/]", "[/corp.test/]corp-dns", "[/corp.test]127.0.0.1"]) {
    const r = await config({ upstreams: [near.address, bad] });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { key: string; message: string; hint: string | null } };
    expect(body.error.key).toBe("bad_request");
    expect(`${body.error.message} ${body.error.hint}`).toContain("per-domain upstream");
  }
  expect(firstAddress(await ask(moat.dnsPort, "still.corp.test"))).toBe("10.9.9.9");
});

test("LOAD_BALANCE spreads queries over upstreams of different speeds; PARALLEL asks them all", async () => {
  // FASTEST first: once both are measured, the near one takes the queries
  for (let i = 0; i < 5; i++) await ask(moat.dnsPort, `warm-${i}.test`);
  expect((await config({ upstreamMode: "LOAD_BALANCE" })).status).toBe(200);
  const names = Array.from({ length: 80 }, (_, i) => `lb-${i}.test`);
  for (const n of names) expect((await ask(moat.dnsPort, n)).rcode).toBe("NOERROR");
  // both get a share: the far one about a fifth (weights 1/(t+10 ms)), and even if this machine's load
  // made its times ten times worse, the chance that it got none of 80 would be below one in 10^3;
  // FASTEST gives it none once both are measured
  expect(names.filter((n) => far.count(n) > 0).length).toBeGreaterThan(0);
  expect(names.filter((n) => near.count(n) > 0).length).toBeGreaterThan(0);

  expect((await config({ upstreamMode: "PARALLEL" })).status).toBe(200);
  for (let i = 0; i < 5; i++) {
    const r = await ask(moat.dnsPort, `par-${i}.test`);
    // the near one answers first, and the far one was asked as well
    expect(firstAddress(r)).toBe("192.0.2.1");
    expect(near.count(`par-${i}.test`)).toBe(1);
    expect(far.count(`par-${i}.test`)).toBe(1);
  }
  const bad = await config({ upstreamMode: "ROUND_ROBIN" });
  expect(bad.status).toBe(400);
});

// The query log shows each query's answer records (what AdGuard Home's log shows): a name the
// upstream answers with a CNAME chain, asked with dig through the real server, then /api/queries
// gives the records as text; Pi-hole compatibility mode leaves the Moat-only field out. The records
// are kept in the long-term database: after a restart the 24 h log (loaded from it) and its own
// pages (disk=true) still give them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";

let moat: MoatProcess;
let up: Upstream;

async function dig(name: string, type = "A"): Promise<string> {
  const p = Bun.spawn(["dig", "+short", "+tries=1", "+time=5", "-p", String(moat.dnsPort), "@127.0.0.1", name, type], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

async function rows(domain: string, disk = false): Promise<Array<Record<string, unknown>>> {
  const r = await moat.api(`/api/queries?domain=${domain}${disk ? "&disk=true" : ""}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { queries: Array<Record<string, unknown>> }).queries;
}

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.7" });
  moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address } });
});

afterAll(async () => {
  await moat?.stop();
  await up?.stop();
});

test("/api/queries gives each query's answer records; compatibility mode leaves them out", async () => {
  expect(await dig("cname-www.target.test")).toContain("192.0.2.7");
  expect(await dig("plain.test", "AAAA")).not.toBe("");
  expect(await dig("nx-gone.test")).toBe("");
  const [chain] = await rows("cname-www.target.test");
  expect(chain?.answers).toBe("CNAME www.target.test, A 192.0.2.7");
  const [v6] = await rows("plain.test");
  expect(v6?.answers).toMatch(/^AAAA 2001:db8::[0-9a-f]+$/);
  const [nx] = await rows("nx-gone.test");
  expect(nx?.answers).toBeNull();

  const patch = await moat.api("/api/config", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ config: { webserver: { api: { piholeCompat: true } } } }),
  });
  expect(patch.status).toBe(200);
  const [compat] = await rows("cname-www.target.test");
  expect(compat?.domain).toBe("cname-www.target.test");
  expect(compat && "answers" in compat).toBe(false);
});

test("after a restart the answer records come back from the long-term database", async () => {
  const patch = await moat.api("/api/config", {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ config: { webserver: { api: { piholeCompat: false } } } }),
  });
  expect(patch.status).toBe(200);
  // stopping writes the queue to pihole-FTL.db; the start loads the day back from it
  await moat.restart();
  for (const disk of [false, true]) {
    const [chain] = await rows("cname-www.target.test", disk);
    expect(chain?.answers).toBe("CNAME www.target.test, A 192.0.2.7");
    const [v6] = await rows("plain.test", disk);
    expect(v6?.answers).toMatch(/^AAAA 2001:db8::[0-9a-f]+$/);
    const [nx] = await rows("nx-gone.test", disk);
    expect(nx?.domain).toBe("nx-gone.test");
    expect(nx?.answers).toBeNull();
  }
});

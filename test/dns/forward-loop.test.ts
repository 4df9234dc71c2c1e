// A forwarding loop: an upstream that is Moat itself. Set through the API (dns.upstreams, a group's
// upstreams) it is refused with a hint that says what to change; found in the config file, where no
// check ran, the first query Moat sent there and got back ends in SERVFAIL (EDE 0, "forwarding loop")
// instead of being forwarded again (one client query made about 32,000 with the rate limit off), and
// /api/info/messages names the upstream until dns.upstreams changes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { runDig } from "./helpers.ts";

let moat: MoatProcess;
let port: number;
let self: string;

beforeAll(async () => {
  port = await freePort();
  self = `127.0.0.1#${port}`;
  moat = await startMoat({
    dnsPortInConfig: port,
    env: { FTLCONF_dns_rateLimit_count: "0" },
    configToml: `[dns]\nport = ${port}\nupstreams = ["${self}"]\n`,
  });
});

afterAll(async () => {
  await moat?.dispose();
});

const api = async (method: string, path: string, body?: unknown) => {
  const r = await moat.api(path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
};
const loopMessages = async () =>
  ((await api("GET", "/api/info/messages")).json.messages as Array<{ plain: string }>).filter((m) =>
    m.plain.startsWith("forwarding loop"),
  );
const total = async () => (await api("GET", "/api/stats/summary")).json.queries.total as number;

test("a query that comes back from an upstream that is Moat ends in SERVFAIL, once, with a message naming it", async () => {
  const out = await runDig(["@127.0.0.1", "-p", String(port), "+tries=1", "+time=5", "loop.example", "A"]);
  expect(out).toContain("status: SERVFAIL");
  expect(out).toContain("(forwarding loop: the upstream sent this query back to Moat)");
  // the client's query is counted, the ones that came back are not forwarded again
  for (let i = 0; i < 50 && (await total()) < 1; i++) await Bun.sleep(100);
  expect(await total()).toBeGreaterThanOrEqual(1);
  expect(await total()).toBeLessThan(5);
  const said = await loopMessages();
  expect(said).toHaveLength(1);
  expect(said[0]!.plain).toContain(`upstream ${self} came back to Moat itself`);
  expect(await moat.outputWith("forwarding loop")).toContain(`a query Moat sent to upstream ${self}`);
  // a second query: the same answer, still one message
  const again = await runDig(["@127.0.0.1", "-p", String(port), "+tries=1", "+time=5", "loop2.example", "A"]);
  expect(again).toContain("status: SERVFAIL");
  expect(await loopMessages()).toHaveLength(1);
});

test("setting an upstream that is Moat itself is refused, in every spelling of this machine's address", async () => {
  // another port of this machine is a resolver like any other; the loop's message goes with the upstream
  expect(
    (await api("PATCH", "/api/config", { config: { dns: { upstreams: [`127.0.0.1#${port + 1}`] } } })).status,
  ).toBe(200);
  expect(await loopMessages()).toHaveLength(0);
  for (const entry of [self, `127.0.0.2#${port}`, `::1#${port}`, `0.0.0.0#${port}`]) {
    const r = await api("PATCH", "/api/config", { config: { dns: { upstreams: [entry] } } });
    expect(r.status, entry).toBe(400);
    expect(r.json.error.key).toBe("bad_request");
    expect(r.json.error.hint, entry).toBe(
      `dns.upstreams: ${entry} is Moat itself (this machine's address and dns.port): every query would come back to be forwarded again; set a DNS server that is not Moat`,
    );
  }
  // moving dns.port onto an upstream's port is the same loop
  const other = await freePort();
  expect((await api("PATCH", "/api/config", { config: { dns: { upstreams: [`127.0.0.1#${other}`] } } })).status).toBe(
    200,
  );
  const moved = await api("PATCH", "/api/config", { config: { dns: { port: other } } });
  expect(moved.status).toBe(400);
  expect(moved.json.error.hint).toStartWith(`dns.upstreams: 127.0.0.1#${other} is Moat itself`);
  // a group's own upstreams
  expect((await api("POST", "/api/groups", { name: "kids" })).status).toBe(201);
  const group = await api("PUT", "/api/upstreams/groups/kids", { upstreams: ["9.9.9.9", `127.0.0.1#${port}`] });
  expect(group.status).toBe(400);
  expect(group.json.error.message).toBe("Invalid upstream: it is Moat itself");
  expect(group.json.error.hint).toStartWith(`127.0.0.1#${port} is Moat itself`);
  expect((await api("GET", "/api/upstreams/groups/kids")).json.groups[0].upstreams).toEqual([]);
});

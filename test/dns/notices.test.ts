// Problems of the DNS side that reach the person through /api/info/messages, as Pi-hole's FTL raises
// them: a client over dns.rateLimit (RATE_LIMIT, once per client per window, with two DNS threads
// each counting their own), a list whose download failed in the last gravity run (LIST), and an
// upstream that strips DNSSEC records while dns.dnssec is on (every validated name would be SERVFAIL).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, until } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
let lists: ReturnType<typeof Bun.serve>;

interface Message {
  id: number;
  type: string;
  plain: string;
  html: string;
}

beforeAll(async () => {
  up = await startUpstream();
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) =>
      new URL(req.url).pathname === "/good.txt"
        ? new Response("good.notice.test\n")
        : new Response("gone", { status: 404 }),
  });
  moat = await startMoat({
    configToml: `[dns]\nupstreams = ["${up.address}"]\nthreads = 2\n[dns.rateLimit]\ncount = 5\ninterval = 60\n`,
  });
});
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
  lists?.stop(true);
});

async function messages(type: string): Promise<Message[]> {
  const r = await moat.api("/api/info/messages");
  expect(r.status).toBe(200);
  return ((await r.json()) as { messages: Message[] }).messages.filter((m) => m.type === type);
}

const setConfig = (config: unknown) => moat.api("/api/config", { method: "PATCH", body: JSON.stringify({ config }) });

test("a rate-limited client is a RATE_LIMIT message, once per client", async () => {
  expect(await messages("RATE_LIMIT")).toEqual([]);
  // each thread counts the queries the kernel hands it: 12 make at least one of two go over 5
  for (const from of ["127.0.0.5", "127.0.0.6"])
    for (let i = 0; i < 12; i++) await ask(moat.dnsPort, `rl-${i}.notice.test`, { from });
  let limited: Message[] = [];
  await until(async () => (limited = await messages("RATE_LIMIT")).length >= 2, 5000, "RATE_LIMIT messages");
  // more queries in the same window add nothing
  for (let i = 0; i < 12; i++) await ask(moat.dnsPort, `rl-more-${i}.test`, { from: "127.0.0.5" });
  await Bun.sleep(300);
  limited = await messages("RATE_LIMIT");
  expect(limited.map((m) => m.plain.replace(/at least \d+ seconds/, "at least N seconds")).sort()).toEqual([
    "Client 127.0.0.5 has been rate-limited for at least N seconds (current limit: 5 queries per 60 seconds)",
    "Client 127.0.0.6 has been rate-limited for at least N seconds (current limit: 5 queries per 60 seconds)",
  ]);
  expect((await setConfig({ dns: { rateLimit: { count: 0 } } })).status).toBe(200);
}, 30_000);

test("a list that failed to download in the last gravity run is a LIST message, gone once it downloads", async () => {
  const add = async (path: string) =>
    (
      await moat.api("/api/lists?type=block", {
        method: "POST",
        body: JSON.stringify({ address: `http://127.0.0.1:${lists.port}${path}` }),
      })
    ).status;
  expect(await add("/good.txt")).toBe(201);
  expect(await add("/missing.txt")).toBe(201);
  expect(await (await moat.api("/api/action/gravity", { method: "POST" })).text()).toContain("Done");
  const listed = (await (await moat.api("/api/lists?type=block")).json()) as {
    lists: Array<{ id: number; address: string }>;
  };
  const missing = listed.lists.find((l) => l.address.endsWith("/missing.txt"))!;
  let failed: Message[] = [];
  await until(async () => (failed = await messages("LIST")).length > 0, 5000, "LIST message");
  expect(failed.map((m) => m.plain)).toEqual([
    `List with ID ${missing.id} (http://127.0.0.1:${lists.port}/missing.txt) was inaccessible during last gravity run`,
  ]);

  expect(
    (await moat.api(`/api/lists/${encodeURIComponent(missing.address)}?type=block`, { method: "DELETE" })).status,
  ).toBe(204);
  expect(await (await moat.api("/api/action/gravity", { method: "POST" })).text()).toContain("Done");
  await until(async () => (await messages("LIST")).length === 0, 5000, "LIST message gone");
}, 60_000);

test("dns.dnssec with an upstream that strips DNSSEC records is a message until validation is off", async () => {
  expect(await messages("DNSSEC")).toEqual([]);
  expect((await setConfig({ dns: { dnssec: true } })).status).toBe(200);
  let said: Message[] = [];
  await until(async () => (said = await messages("DNSSEC")).length > 0, 5000, "DNSSEC message");
  expect(said).toHaveLength(1);
  expect(said[0]!.plain).toContain(`the upstream ${up.address} answers the root's DNSKEY without signatures`);
  expect(said[0]!.plain).toContain("Pick an upstream that passes DNSSEC records, or turn DNSSEC validation off.");
  expect(await moat.outputWith("without signatures (RRSIG)")).toContain(up.address);

  expect((await setConfig({ dns: { dnssec: false } })).status).toBe(200);
  await until(async () => (await messages("DNSSEC")).length === 0, 5000, "DNSSEC message gone");
}, 30_000);

// Family controls and the custom rules with dns.threads = 2: every DNS thread judges by the same snapshot, so a group's blocked
// service, an open schedule window that blocks everything and a pause apply to queries whichever thread
// answers them (bursts from fresh source ports, which the kernel spreads over both threads' sockets), and
// each is lifted on both.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { call } from "../lists/helpers.ts";
import { ask, firstAddress, until } from "./helpers.ts";

const FWD = "192.0.2.63";
const TOKEN = "fam1ly";
let moat: MoatProcess;
let up: Upstream;

beforeAll(async () => {
  up = await startUpstream({ addr: FWD });
  const port = await freePort();
  moat = await startMoat({
    env: { FTLCONF_webserver_api_metricsToken: TOKEN },
    configToml: `[dns]\nport = ${port}\nthreads = 2\nupstreams = ["${up.address}"]\n[dns.rateLimit]\ncount = 0\n`,
    dnsPortInConfig: port,
  });
  const g = await call(moat, "POST", "/api/groups", { name: "kids" });
  expect(
    (await call(moat, "POST", "/api/clients", { client: "127.0.0.2", groups: [g.json.groups[0].id] })).status,
  ).toBe(201);
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

async function perThread(): Promise<number[]> {
  const text = await (await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return [...text.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
}

/** the addresses `n` queries for `name` from 127.0.0.2 get, each from a fresh source port */
async function burst(name: string, n = 40): Promise<string[]> {
  const out = await Promise.all(
    Array.from({ length: n }, async (_v, i) =>
      firstAddress(await ask(moat.dnsPort, `q${i}.${name}`, { from: "127.0.0.2" })),
    ),
  );
  return [...new Set(out.map(String))];
}

test("services, a schedule and a pause apply on both DNS threads, and are lifted on both", async () => {
  const before = await perThread();
  // the DNS threads' answer counters (the main thread's wildcard socket has one too)
  expect(before.length).toBeGreaterThanOrEqual(2);
  expect((await call(moat, "PUT", "/api/services/groups/kids", { services: ["tiktok"] })).status).toBe(200);
  expect(await burst("tiktok.com")).toEqual(["0.0.0.0"]);
  // both threads answered some of them
  await until(
    async () => (await perThread()).filter((n, i) => n > (before[i] ?? 0)).length >= 2,
    5000,
    "answers on two threads",
  );

  const now = new Date();
  const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  const window = {
    days: [now.getDay()],
    start: hhmm(new Date(now.getTime() - 60000)),
    end: hhmm(new Date(now.getTime() + 5 * 60000)),
  };
  if (window.start > hhmm(now)) window.days = [(now.getDay() + 6) % 7]; // the window started yesterday, before midnight
  expect(
    (await call(moat, "PUT", "/api/schedules/groups/kids", { windows: [window], services: [], everything: true }))
      .status,
  ).toBe(200);
  expect(await burst("homework.test")).toEqual(["0.0.0.0"]);
  expect(
    (await call(moat, "PUT", "/api/schedules/groups/kids", { windows: [], services: [], everything: false })).status,
  ).toBe(200);
  expect(await burst("homework2.test")).toEqual([FWD]);

  expect((await call(moat, "POST", "/api/pauses/127.0.0.2", { minutes: 10 })).status).toBe(200);
  expect(await burst("paused.test")).toEqual(["0.0.0.0"]);
  expect((await moat.api("/api/pauses/127.0.0.2", { method: "DELETE" })).status).toBe(204);
  expect(await burst("resumed.test")).toEqual([FWD]);
  expect((await call(moat, "PUT", "/api/services/groups/kids", { services: [] })).status).toBe(200);
  expect(await burst("tiktok.com")).toEqual([FWD]);
}, 30_000);

test("the custom rules (AdGuard syntax) apply on both DNS threads, and are lifted on both", async () => {
  const text = "||custom-threads.test^$client=127.0.0.2\n||rw-threads.test^$dnsrewrite=10.3.3.3\n";
  expect((await call(moat, "PUT", "/api/rules/custom", { text })).status).toBe(200);
  expect(await burst("custom-threads.test")).toEqual(["0.0.0.0"]);
  expect(await burst("rw-threads.test")).toEqual(["10.3.3.3"]);
  expect((await call(moat, "PUT", "/api/rules/custom", { text: "" })).status).toBe(200);
  expect(await burst("custom-threads.test")).toEqual([FWD]);
  expect(await burst("rw-threads.test")).toEqual([FWD]);
}, 30_000);

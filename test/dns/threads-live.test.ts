// dns.threads changed while Moat runs (through the config API): the UDP sockets are rebound with
// SO_REUSEPORT and the extra threads start, answering at once; back to 1, they stop and one thread
// answers everything. Queries come from fresh source ports so the kernel spreads them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { decodeReply, firstAddress, sendUdp, until } from "./helpers.ts";

let moat: MoatProcess;
const TOKEN = "l1ve";

beforeAll(async () => {
  const port = await freePort();
  moat = await startMoat({
    env: { FTLCONF_webserver_api_metricsToken: TOKEN },
    configToml: `[dns]\nport = ${port}\nhosts = ["10.0.0.9 live.threads.test"]\n`,
    dnsPortInConfig: port,
  });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
});

/** Answers of the threads that answer UDP: the main thread alone, or with several the workers (thread 0, the main one, left out). */
async function perThread(): Promise<number[]> {
  const text = await (await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const all = [...text.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
  return all.length > 1 ? all.slice(1) : all;
}
const sum = (a: number[]) => a.reduce((s, n) => s + n, 0);

async function burst(n: number): Promise<void> {
  const replies = await Promise.all(
    Array.from({ length: n }, async (_v, i) => {
      const id = 100 + i;
      const raw = await sendUdp(
        moat.dnsPort,
        packet.encode({
          type: "query",
          id,
          flags: packet.RECURSION_DESIRED,
          questions: [{ type: "A", name: "live.threads.test" }],
        }),
        "127.0.0.1",
        5000,
      );
      expect(raw).toBeTruthy();
      const r = decodeReply(raw!);
      expect(r.msg.id).toBe(id);
      return firstAddress(r);
    }),
  );
  expect(replies.filter((a) => a !== "10.0.0.9")).toEqual([]);
}

async function setThreads(n: number): Promise<void> {
  const r = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { threads: n } } }),
  });
  expect(r.status).toBe(200);
}

test("dns.threads 1 → 2 → 1 through the API", async () => {
  expect((await perThread()).length).toBe(1);
  await setThreads(2);
  // the API answers once the new sockets and threads listen
  let before = await perThread();
  expect(before.length).toBe(2);
  await burst(60);
  await until(async () => sum(await perThread()) - sum(before) >= 60, 10_000, "counted");
  expect((await perThread()).every((n, i) => n > before[i]!)).toBe(true);
  await setThreads(1);
  before = await perThread();
  expect(before.length).toBe(1);
  await burst(30);
  expect(sum(await perThread()) - sum(before)).toBe(30);
}, 30_000);

/** Answers per thread as /metrics lists them, the main thread (0) first. */
async function allThreads(): Promise<number[]> {
  const text = await (await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return [...text.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)].map((m) => Number(m[2]));
}

test("dns.offMainThread at dns.threads = 1: one DNS thread answers and the main thread none; off, the main thread again", async () => {
  const patch = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { threads: 1, offMainThread: true } } }),
  });
  expect(patch.status).toBe(200);
  const before = await allThreads();
  expect(before.length).toBe(2);
  await burst(30);
  await until(async () => (await allThreads())[1]! - before[1]! >= 30, 10_000, "counted");
  const after = await allThreads();
  expect([after[0]! - before[0]!, after[1]! - before[1]!]).toEqual([0, 30]);
  const off = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { offMainThread: false } } }),
  });
  expect(off.status).toBe(200);
  const main = await allThreads();
  expect(main.length).toBe(1);
  await burst(10);
  expect((await allThreads())[0]! - main[0]!).toBe(10);
}, 30_000);

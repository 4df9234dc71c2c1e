// webserver.api.maxHistory bounds how far back the statistics and the query log reach, as in
// Pi-hole's FTL: lowering it drops older queries from the window at once, and at start only that
// span is imported from the long-term database. The real server, real DNS.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { ask, firstAddress } from "../dns/helpers.ts";

let moat: MoatProcess;

beforeAll(async () => {
  moat = await startMoat({ configToml: `[dns]\nhosts = ["10.9.8.1 mh1.test", "10.9.8.2 mh2.test"]\n` });
});
afterAll(async () => {
  await moat?.dispose();
});

async function total(): Promise<number> {
  const r = await moat.api("/api/stats/summary");
  expect(r.status).toBe(200);
  return ((await r.json()) as { queries: { total: number } }).queries.total;
}

async function logged(): Promise<string[]> {
  const r = await moat.api("/api/queries?length=100");
  expect(r.status).toBe(200);
  return ((await r.json()) as { queries: Array<{ domain: string }> }).queries.map((q) => q.domain).sort();
}

async function setMaxHistory(seconds: number): Promise<void> {
  const r = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { webserver: { api: { maxHistory: seconds } } } }),
  });
  expect([r.status, r.status === 200 ? "" : await r.text()]).toEqual([200, ""]);
}

async function askLocal(name: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const a = await ask(moat.dnsPort, name);
    expect([name, a.msg.questions![0]!.name, firstAddress(a)]).toEqual([
      name,
      name,
      name === "mh1.test" ? "10.9.8.1" : "10.9.8.2",
    ]);
  }
}

test("lowering maxHistory empties the window; a restart imports only its span", async () => {
  await askLocal("mh1.test", 4);
  expect(await total()).toBe(4);
  await setMaxHistory(0);
  expect(await total()).toBe(0);
  await setMaxHistory(86400);
  await askLocal("mh2.test", 2);
  expect(await total()).toBe(2);
  // the long-term database still has all six: a restart with 24 h imports them
  await moat.restart();
  expect(await total()).toBe(6);
  expect(await logged()).toEqual([...Array(4).fill("mh1.test"), ...Array(2).fill("mh2.test")]);
  // with 0 nothing is imported, neither into the statistics nor into the query log
  await setMaxHistory(0);
  await moat.restart();
  expect(await total()).toBe(0);
  expect(await logged()).toEqual([]);
  // and the disk still has them for whoever asks it
  const disk = await moat.api("/api/queries?disk=true&length=100");
  expect(((await disk.json()) as { queries: unknown[] }).queries.length).toBe(6);
}, 30_000);

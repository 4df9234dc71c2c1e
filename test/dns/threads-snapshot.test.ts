// With the DNS thread off the main thread, the thread maps the filter snapshot's file itself
// (src/dns/threads/shared-snapshot.ts) instead of taking a copy of its sets: loading a list of 1,000,000
// names must not add a copy of the snapshot's sets (the file is mapped by each thread), blocking must work in the
// thread after each swap (a new gravity), and the file of a replaced snapshot must not stay open.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { ask, firstAddress, gravityDb, until } from "./helpers.ts";

let moat: MoatProcess;
let up: Upstream;
const TOKEN = "sn4pshot";
const NAMES = 1_000_000;

beforeAll(async () => {
  up = await startUpstream({ addr: "192.0.2.77" });
  moat = await startMoat({
    env: {
      FTLCONF_dns_offMainThread: "true",
      FTLCONF_dns_threads: "1",
      FTLCONF_dns_upstreams: up.address,
      FTLCONF_dns_rateLimit_count: "0",
      FTLCONF_webserver_api_metricsToken: TOKEN,
    },
  });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
  await up?.stop();
});

/**
 * Mappings of the current gravity.snapshot in the server process (/proc/<pid>/maps): the main thread
 * maps it, and so does the DNS thread when it reads the file itself; a thread given a copy of the sets
 * (in a SharedArrayBuffer) adds none. Counted rather than measured: the process's anonymous memory also
 * moves with the build's leftovers and the collector (5 to 25 MiB here), as much as a copy would add.
 */
function snapshotMappings(): number {
  const maps = readFileSync(`/proc/${moat.proc!.pid}/maps`, "utf8");
  return maps.split("\n").filter((l) => l.endsWith("/gravity.snapshot")).length;
}

/** What the DNS thread (thread 1 in /metrics) has answered. */
async function threadAnswers(): Promise<number> {
  const r = await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  return Number(/^moat_dns_thread_answers_total\{thread="1"\} (\d+)$/m.exec(await r.text())?.[1] ?? 0);
}

/** Blocked names and one that is not, asked many times (each lookup touches the sets as queries do). */
async function askAround(blocked: string[]): Promise<void> {
  for (let round = 0; round < 3; round++)
    for (const name of blocked) expect(firstAddress(await ask(moat.dnsPort, name))).toBe("0.0.0.0");
  expect(firstAddress(await ask(moat.dnsPort, "allowed.example"))).toBe("192.0.2.77");
}

async function restartDns(): Promise<void> {
  const r = await moat.api("/api/action/restartdns", { method: "POST" });
  expect(r.status).toBe(200);
  await r.arrayBuffer();
}

/** Descriptors of the server that are open on a gravity.snapshot that was replaced since. */
function replacedFilesOpen(): number {
  const dir = `/proc/${moat.proc!.pid}/fd`;
  let n = 0;
  for (const fd of readdirSync(dir)) {
    try {
      const target = readlinkSync(join(dir, fd));
      if (target.includes("gravity.snapshot") && target.endsWith("(deleted)")) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

test("the thread maps the snapshot's file: no second copy of a big list, blocking after each swap", async () => {
  await askAround([]);

  const db = gravityDb(moat.dataDir);
  db.run(`INSERT OR IGNORE INTO adlist(id, address, enabled, type) VALUES (1, 'http://l/big', 1, 0)`);
  db.run(`INSERT OR IGNORE INTO adlist_by_group(adlist_id, group_id) VALUES (1, 0)`);
  const add = db.prepare("INSERT INTO gravity(domain, adlist_id) VALUES (?, 1)");
  db.transaction(() => {
    for (let i = 0; i < NAMES; i++) add.run(`n${i}.big-list.test`);
  })();
  await restartDns();
  const file = statSync(join(moat.dataDir, "gravity.snapshot")).size;
  expect(file).toBeGreaterThan(8 * 2 ** 20);

  const sample = Array.from({ length: 40 }, (_v, i) => `n${(i * 14_983) % NAMES}.big-list.test`);
  const answered = await threadAnswers();
  await askAround(sample);
  // the thread answered them, with the new snapshot (its counters reach /metrics a few times a second)
  await until(async () => (await threadAnswers()) >= answered + 3 * sample.length, 10_000, "the thread's answers");
  // the main thread's mapping and the DNS thread's own (a copy for the thread: 1)
  expect(snapshotMappings()).toBeGreaterThanOrEqual(2);

  // another gravity: a new file replaces the mapped one; the thread blocks by it, the old one is let go
  db.run(`INSERT INTO gravity(domain, adlist_id) VALUES ('late.big-list.test', 1)`);
  db.close();
  await restartDns();
  await askAround(["late.big-list.test", sample[0]!]);
  expect(replacedFilesOpen()).toBe(0);
}, 120_000);

// What the API calls that read much cost a busy appliance: a real Moat with --list list entries (the
// mix's lists, loaded through the API and a gravity run) and --rows queries in its long-term database
// (test/stats/fixture.ts, imported into memory at start as the last 24 h), then each call below
// --rounds times: a Teleporter backup, searches of the lists (a partial term no entry holds scans
// every row), the lists with their counts, the in-memory query log's filters and statistics, and
// last the restore of the backup (the same lists and settings again). Prints each
// call's time and reply size, the slowest DNS answer meanwhile (a name Moat answers itself, every
// 5 ms) and Moat's RSS before and at most during it (sampled every 10 ms).
// With --sweep, every GET of the OpenAPI document without a path parameter instead, once each,
// printing those that held DNS over 10 ms or took 10 MiB more.
// Usage: bun bench/api/long-calls.ts [--list 1000000] [--rows 1000000] [--rounds 2] [--only teleporter,search] [--sweep]
//   [--exclude REGEX;REGEX]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, MoatProcess } from "../../test/harness/moat.ts";
import { bulkSeededDataDir } from "../../test/stats/fixture.ts";
import { makeMix } from "../mix/data.ts";
import { loadMoatLists } from "../mix/servers.ts";
import { slowestDns } from "../querylog/slowest-dns.ts";

const { values: opt } = parseArgs({
  options: {
    list: { type: "string", default: "1000000" },
    rows: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "2" },
    only: { type: "string", default: "" },
    sweep: { type: "boolean", default: false },
    // webserver.api.excludeDomains (regexes, ";" between them): the statistics and the log hide them
    exclude: { type: "string", default: "" },
  },
});

const scratch = mkdtempSync(join(tmpdir(), "moat-bench-long-calls-"));
const mix = makeMix(scratch, { list: Number(opt.list), queries: 1, popular: 10, hostsPool: 10, abpPool: 10 });
const listed = readFileSync(mix.hostsFile, "utf8").split("\n", 1)[0]!.split(" ")[1]!;
let backup: Uint8Array | null = null;
const CALLS: Record<string, string | (() => RequestInit)> = {
  teleporter: "/api/teleporter",
  "search: partial, no match": "/api/search/qqqzzz?partial=true",
  "search: partial, many": "/api/search/ab?partial=true",
  "search: exact": `/api/search/${listed}`,
  lists: "/api/lists",
  // the last 24 h in memory (the stored queries, imported at start): filters no index serves
  "queries: name pattern": "/api/queries?length=100&domain=*7*.bulk.test",
  "queries: client": "/api/queries?length=100&client_ip=10.0.0.7",
  "queries: rare name": "/api/queries?length=100&domain=*.nowhere.test",
  "queries: newest page": "/api/queries?length=100",
  // what the dashboard polls (the fixture's names are all distinct, each asked once: the top lists' worst case)
  "stats: summary": "/api/stats/summary",
  "stats: top domains": "/api/stats/top_domains?count=100",
  "stats: top blocked": "/api/stats/top_domains?blocked=true&count=10",
  "stats: top clients": "/api/stats/top_clients?count=10",
  "stats: upstreams": "/api/stats/upstreams",
  "stats: recent blocked": "/api/stats/recent_blocked?count=10",
  history: "/api/history",
  "history: clients": "/api/history/clients",
  // last but one: the hosts list leaves (its 700k rows with it)
  "lists: delete": () => ({ method: "DELETE" }),
  "teleporter restore": () => {
    const fd = new FormData();
    fd.append("file", new Blob([backup!]), "backup.zip");
    return { method: "POST", body: fd };
  },
};
const CALLS_SWEPT: Record<string, string> = {};
const only = opt.only ? opt.only.split(",") : [];

const dir = bulkSeededDataDir(Number(opt.rows), Date.now() / 1000);
const m = new MoatProcess(dir, await freePort(), await freePort(), {
  env: {
    FTLCONF_gravity_maxListSize: "1024",
    ...(opt.exclude ? { FTLCONF_webserver_api_excludeDomains: opt.exclude } : {}),
  },
});
const rssMiB = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${m.proc!.pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;

try {
  await m.start(60_000);
  console.log(
    `long API calls: ${opt.list} list entries (gravity: ${await loadMoatLists(m.httpPort, mix)}), ${opt.rows} queries stored`,
  );
  await Bun.sleep(3000); // the snapshot of the new lists is built
  for (let i = 0; i < 600; i++) {
    // the day's queries are in memory
    const s = (await (await m.api("/api/stats/summary")).json()) as { queries: { total: number } };
    if (s.queries.total >= Number(opt.rows) * 0.9) break;
    await Bun.sleep(500);
  }
  if (opt.sweep) {
    const doc = (await (await m.api("/api/docs/json")).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const p of Object.keys(doc.paths)) {
      if (!doc.paths[p]!.get || p.includes("{") || p.startsWith("/api/docs") || p === "/api/teleporter") continue;
      CALLS_SWEPT[p] = p;
    }
  }
  for (const [name, call] of Object.entries(opt.sweep ? CALLS_SWEPT : CALLS)) {
    if (only.length && !only.some((o) => name.startsWith(o))) continue;
    if (typeof call !== "string" && name !== "lists: delete" && !backup) continue;
    const [path, init] =
      typeof call === "string"
        ? [call, undefined]
        : name === "lists: delete"
          ? [`/api/lists/${encodeURIComponent(`file://${mix.hostsFile}`)}?type=block`, call()]
          : ["/api/teleporter", call()];
    for (let round = 1; round <= Number(opt.rounds); round++) {
      const before = rssMiB();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 10);
      let ms = 0;
      let bytes = 0;
      let status = 0;
      const dns = await slowestDns(m.dnsPort, async () => {
        const t = performance.now();
        const r = await m.api(path, init);
        status = r.status;
        const body = new Uint8Array(await r.arrayBuffer());
        bytes = body.byteLength;
        if (name === "teleporter") backup = body;
        ms = performance.now() - t;
      });
      clearInterval(sampler);
      if (opt.sweep && dns.slowest <= 10 && peak - before <= 10) continue;
      console.log(
        `${name} (${round}): ${status} in ${ms.toFixed(0)} ms, ${(bytes / 1024).toFixed(0)} KiB; slowest DNS answer ${dns.slowest.toFixed(1)} ms (${dns.answers} answers); RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} at most`,
      );
      await Bun.sleep(1000);
    }
  }
} finally {
  await m.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}

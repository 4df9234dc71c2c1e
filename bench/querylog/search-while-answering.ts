// What reading the long-term database through the API costs DNS: a real Moat on a pihole-FTL.db of N
// queries (test/stats/fixture.ts, mostly distinct names over 23 h), /api/queries?disk=true searches
// that no index serves (a wildcard name, a client, a rare name) and the long-term statistics of the
// day, one after another, and a DNS query every 5 ms meanwhile (a name Moat answers itself). Prints
// each read's time and the slowest DNS answer during the reads and during as long a quiet spell.
// Last, flush/logs the same way.
// Usage: bun bench/querylog/search-while-answering.ts [--rows 1000000] [--rounds 3]
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { freePort, MoatProcess } from "../../test/harness/moat.ts";
import { bulkSeededDataDir } from "../../test/stats/fixture.ts";
import { slowestDns } from "./slowest-dns.ts";

const { values: opt } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, rounds: { type: "string", default: "3" } },
});
const ROWS = Number(opt.rows);
const NOW = Math.floor(Date.now() / 1000);
const DAY = `from=${NOW - 86_400}&until=${NOW}`;
const SEARCHES = [
  ...["domain=*7*.bulk.test", "client_ip=10.0.0.7", `domain=d${ROWS - 5}.bulk*`, "domain=*.nowhere.test"].map(
    (f) => `/api/queries?disk=true&length=100&${f}`,
  ),
  // the long-term statistics' first read brings their rollups up to date (a write)
  `/api/stats/database/top_domains?${DAY}`,
  `/api/stats/database/top_clients?${DAY}`,
  `/api/history/database?${DAY}`,
  "/api/info/database",
];

const dir = bulkSeededDataDir(ROWS, Date.now() / 1000);
const m = new MoatProcess(dir, await freePort(), await freePort(), {
  env: { FTLCONF_database_DBimport: "false" },
});
try {
  await m.start(60_000);
  console.log(`search while answering: ${ROWS} queries in pihole-FTL.db`);
  for (let round = 1; round <= Number(opt.rounds); round++) {
    const times: string[] = [];
    let spent = 0;
    const busy = await slowestDns(m.dnsPort, async () => {
      for (const s of SEARCHES) {
        const t = performance.now();
        const r = await m.api(s);
        const body = (await r.json()) as { recordsFiltered?: number };
        const ms = performance.now() - t;
        spent += ms;
        times.push(`${s} ${ms.toFixed(0)} ms (${body.recordsFiltered ?? r.status})`);
      }
    });
    const quiet = await slowestDns(m.dnsPort, () => Bun.sleep(spent));
    console.log(
      `round ${round}: slowest DNS answer ${busy.slowest.toFixed(1)} ms during the searches (${busy.answers} answers), ${quiet.slowest.toFixed(1)} ms in as long without\n  ${times.join("\n  ")}`,
    );
  }
  // last, as it empties the day: flush/logs deletes every row of the last 24 h
  let flushMs = 0;
  let flushStatus = 0;
  const flush = await slowestDns(m.dnsPort, async () => {
    const t = performance.now();
    flushStatus = (await m.api("/api/action/flush/logs", { method: "POST" })).status;
    flushMs = performance.now() - t;
  });
  console.log(
    `flush/logs: ${flushMs.toFixed(0)} ms (${flushStatus}), slowest DNS answer ${flush.slowest.toFixed(1)} ms (${flush.answers} answers)`,
  );
} finally {
  await m.stop();
  rmSync(dir, { recursive: true, force: true });
}

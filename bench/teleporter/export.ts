// What a Teleporter backup costs a busy appliance: a real Moat with --list list entries (the mix's
// lists, loaded through the API and a gravity run) and --rows queries in its long-term database
// (test/stats/fixture.ts), then GET /api/teleporter --rounds times. Prints each export's time and
// size, the slowest DNS answer meanwhile (a name Moat answers itself, every 5 ms) and Moat's RSS
// before and at most during it (sampled every 10 ms).
// Usage: bun bench/teleporter/export.ts [--list 1000000] [--rows 1000000] [--rounds 2]
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
  },
});

const scratch = mkdtempSync(join(tmpdir(), "moat-bench-teleporter-"));
const dir = bulkSeededDataDir(Number(opt.rows), Date.now() / 1000);
const m = new MoatProcess(dir, await freePort(), await freePort(), {
  env: { FTLCONF_database_DBimport: "false", FTLCONF_gravity_maxListSize: "1024" },
});
const rssMiB = () =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${m.proc!.pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;

try {
  await m.start(60_000);
  const mix = makeMix(scratch, { list: Number(opt.list), queries: 1, popular: 10, hostsPool: 10, abpPool: 10 });
  console.log(
    `teleporter export: ${opt.list} list entries (gravity: ${await loadMoatLists(m.httpPort, mix)}), ${opt.rows} queries stored`,
  );
  await Bun.sleep(3000); // the snapshot of the new lists is built
  for (let round = 1; round <= Number(opt.rounds); round++) {
    const before = rssMiB();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 10);
    let ms = 0;
    let bytes = 0;
    let status = 0;
    const dns = await slowestDns(m.dnsPort, async () => {
      const t = performance.now();
      const r = await m.api("/api/teleporter");
      status = r.status;
      bytes = (await r.arrayBuffer()).byteLength;
      ms = performance.now() - t;
    });
    clearInterval(sampler);
    console.log(
      `round ${round}: ${status} in ${ms.toFixed(0)} ms, ${(bytes / 1048576).toFixed(2)} MiB; slowest DNS answer ${dns.slowest.toFixed(1)} ms (${dns.answers} answers); RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} at most`,
    );
    await Bun.sleep(2000);
  }
} finally {
  await m.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}

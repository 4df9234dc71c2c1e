// Start-up with a busy day in the long-term database: seeds pihole-FTL.db with N queries of the
// last 23 h (SQL, test/stats/fixture.ts), starts the real server on it and measures, from the spawn:
// the first DNS answer (`localhost`, answered by Moat itself), the API's first answer, and when
// /api/stats/summary counts the whole history; and the slowest DNS answer while the history loads
// (a query every 5 ms), which is what the import costs the hot path.
// Usage: bun bench/startup/run.ts [queries=300000] [runs=2]
import { rmSync } from "node:fs";
import { freePort, MoatProcess } from "../../test/harness/moat.ts";
import { encodeQuery, sendUdp } from "../../test/dns/helpers.ts";
import { bulkSeededDataDir } from "../../test/stats/fixture.ts";

const N = Number(process.argv[2] ?? 300_000);
const RUNS = Math.min(5, Number(process.argv[3] ?? 2));

async function once(dataDir: string) {
  const m = new MoatProcess(dataDir, await freePort(), await freePort(), {});
  const t0 = performance.now();
  let firstDns = Number.NaN,
    api = Number.NaN,
    loaded = Number.NaN,
    slowest = 0,
    answers = 0;
  let stop = false;
  const q = encodeQuery("localhost");
  const dnsLoop = (async () => {
    while (!stop && performance.now() - t0 < 120_000) {
      const s = performance.now();
      // short until the first answer: a query sent before the port is bound is never answered
      const r = await sendUdp(m.dnsPort, q, "127.0.0.1", Number.isNaN(firstDns) ? 20 : 1000);
      const e = performance.now();
      if (r) {
        answers++;
        if (Number.isNaN(firstDns)) firstDns = e - t0;
        else if (Number.isNaN(loaded)) slowest = Math.max(slowest, e - s);
      }
      await Bun.sleep(5);
    }
  })();
  await m.start(120_000);
  api = performance.now() - t0;
  while (performance.now() - t0 < 120_000) {
    const s = (await (await m.api("/api/stats/summary")).json()) as { queries: { total: number } };
    if (s.queries.total >= N && !Number.isNaN(firstDns)) {
      loaded = performance.now() - t0;
      break;
    }
    await Bun.sleep(50);
  }
  stop = true;
  await dnsLoop;
  await m.stop();
  return { firstDns, api, loaded, slowest, answers };
}

const dataDir = bulkSeededDataDir(N, Date.now() / 1000);
console.log(`startup bench: ${N} queries of the last 23 h in pihole-FTL.db`);
try {
  for (let i = 0; i < RUNS; i++) {
    const r = await once(dataDir);
    const f = (ms: number) => (Number.isNaN(ms) ? "never" : `${(ms / 1000).toFixed(2)} s`);
    console.log(
      `run ${i + 1}: first DNS answer ${f(r.firstDns)}, API up ${f(r.api)}, history counted ${f(r.loaded)}; slowest DNS answer while loading ${r.slowest.toFixed(1)} ms (${r.answers} answers)`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

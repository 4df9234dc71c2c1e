// A restart with a busy day in the long-term database: DNS answers within 2 s of the process start,
// while the last 24 h load behind it (database.DBimport), and /api/stats/summary ends up counting every
// stored query plus the live ones. Before, the whole history loaded first and DNS waited for it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { freePort, MoatProcess } from "../harness/moat.ts";
import { encodeQuery, sendUdp } from "../dns/helpers.ts";
import { bulkSeededDataDir, getJson } from "./fixture.ts";

const STORED = 200_000;
let dir: string;
let m: MoatProcess;

beforeAll(() => {
  dir = bulkSeededDataDir(STORED, Date.now() / 1000);
});
afterAll(async () => {
  await m?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function dig(name: string): Promise<string> {
  const p = Bun.spawn(["dig", "+short", "+time=2", "+tries=1", "-p", String(m.dnsPort), "@127.0.0.1", name, "A"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

test("DNS answers within 2 s of the start while 200k stored queries load behind it", async () => {
  m = new MoatProcess(dir, await freePort(), await freePort(), {});
  const q = encodeQuery("localhost");
  const t0 = performance.now();
  const starting = m.start(60_000);
  let firstAnswer = Number.NaN;
  while (performance.now() - t0 < 10_000) {
    // a short wait per try: a query sent before the port is bound is never answered
    if (await sendUdp(m.dnsPort, q, "127.0.0.1", 20)) {
      firstAnswer = performance.now() - t0;
      break;
    }
    if (m.proc?.exitCode != null) break;
  }
  await starting;
  expect(firstAnswer).toBeLessThan(2000);
  expect(await dig("localhost")).toBe("127.0.0.1");

  // the history is counted once loaded, beside the live queries (at least the two above)
  let total = 0;
  for (let i = 0; i < 300 && total < STORED + 2; i++) {
    total = (await getJson(m, "/api/stats/summary")).queries.total;
    if (total < STORED + 2) await Bun.sleep(100);
  }
  expect(total).toBeGreaterThanOrEqual(STORED + 2);
  expect(total).toBeLessThan(STORED + 1000);
  expect(await m.outputWith(`imported ${STORED} queries`)).toContain(`imported ${STORED} queries`);
}, 90_000);

// Small-change benchmark: with a large gravity list (default 1M names) live, how long from an API
// request adding one exact deny entry until DNS answers the name as blocked, on every DNS thread.
//   0. one change, the process's first (code no change has run yet), reported on its own;
//   1. `--changes` entries (default 50), each added alone (POST /api/domains/deny/exact) and then asked
//      from 8 fresh source ports at once until all 8 answers are 0.0.0.0: p50/p99 of request → all
//      blocked, and of the request alone (the API answers once the change is in force, src/core/events.ts);
//   2. a script adding `--burst` entries (default 100) one by one: total time, and how many filter
//      snapshots the server built meanwhile (its log), which must not be one per entry.
// Run: node_modules/.bin/bun bench/filter/delta.ts [--names 1000000] [--threads 2] [--changes 50] [--burst 100]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openGravityDb } from "../../src/db/index.ts";
import { startMoat, type MoatProcess } from "../../test/harness/moat.ts";
import { ask, firstAddress } from "../../test/dns/helpers.ts";

const opt = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const NAMES = opt("names", 1_000_000);
const THREADS = opt("threads", 2);
const CHANGES = opt("changes", 50);
const BURST = opt("burst", 100);
/** every step is bounded: a change not in force by then fails the run */
const DEADLINE_MS = 5000;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

function prepare(): string {
  const dir = mkdtempSync(join(tmpdir(), "moat-bench-delta-"));
  const file = join(dir, "list.txt");
  const lines: string[] = [];
  for (let i = 0; i < NAMES; i++) lines.push(`host${i}.bench${i % 977}.test`);
  writeFileSync(file, lines.join("\n"));
  const db = openGravityDb(dir, true);
  db.query("INSERT INTO adlist (address, type) VALUES (?, 0)").run(`file://${file}`);
  db.close();
  return dir;
}

/** Asks `name` from 8 fresh source ports at once (spread over the threads) until every answer is 0.0.0.0. */
async function blockedEverywhere(moat: MoatProcess, name: string, t0: number): Promise<number> {
  while (performance.now() - t0 < DEADLINE_MS) {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        ask(moat.dnsPort, name, { timeoutMs: 200 }).then(
          (r) => firstAddress(r),
          () => null,
        ),
      ),
    );
    if (answers.every((a) => a === "0.0.0.0")) return performance.now() - t0;
  }
  throw new Error(`${name} not blocked on every thread within ${DEADLINE_MS} ms`);
}

const addDeny = async (moat: MoatProcess, domain: string) => {
  const r = await moat.api("/api/domains/deny/exact", { method: "POST", body: JSON.stringify({ domain }) });
  await r.arrayBuffer();
  if (r.status !== 201) throw new Error(`POST ${domain}: ${r.status}`);
};

const snapshotsBuilt = (moat: MoatProcess) => (moat.output.match(/filter snapshot \d+/g) ?? []).length;

const dir = prepare();
// upstream: a port nothing answers, so an unblocked name times out (and is asked again)
const moat = await startMoat({
  dataDir: dir,
  env: { FTLCONF_dns_upstreams: "127.0.0.1#9", FTLCONF_dns_rateLimit_count: "0", FTLCONF_dns_threads: `${THREADS}` },
});
try {
  const g0 = performance.now();
  const run = await moat.api("/api/action/gravity", { method: "POST" });
  if (!(await run.text()).includes("Done")) throw new Error("gravity run failed");
  const probe = `host${NAMES - 1}.bench${(NAMES - 1) % 977}.test`;
  await blockedEverywhere(moat, probe, performance.now());
  console.log(`${NAMES} gravity names live after ${ms(performance.now() - g0)} (dns.threads = ${THREADS})`);
  await Bun.sleep(1000);

  // the process's first change runs code no change has run yet: reported on its own, not in the percentiles
  {
    const t0 = performance.now();
    await addDeny(moat, "first.change.test");
    console.log(
      `first change after the start: blocked on every thread after ${ms(await blockedEverywhere(moat, "first.change.test", t0))}`,
    );
  }
  const total: number[] = [];
  const api: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const name = `delta${i}.change.test`;
    const t0 = performance.now();
    await addDeny(moat, name);
    api.push(performance.now() - t0);
    total.push(await blockedEverywhere(moat, name, t0));
  }
  console.log(
    `${CHANGES} single changes: request → blocked on every thread p50 ${ms(pct(total, 50))} p99 ${ms(pct(total, 99))} max ${ms(Math.max(...total))}; API reply p50 ${ms(pct(api, 50))} p99 ${ms(pct(api, 99))}`,
  );
  // the build time each snapshot logs (whole or domain entries only), in whole ms
  const builds = [...moat.output.matchAll(/filter snapshot \d+: (domain entries only)?.*\((\d+) ms\)/g)].slice(
    -CHANGES,
  );
  const buildMs = builds.map((m) => Number(m[2]));
  console.log(
    `  their snapshots: ${builds.filter((m) => m[1]).length} of ${builds.length} domain entries only; build p50 ${pct(buildMs, 50)} ms p99 ${pct(buildMs, 99)} ms (as logged)`,
  );

  await Bun.sleep(500);
  const built0 = snapshotsBuilt(moat);
  const b0 = performance.now();
  for (let i = 0; i < BURST; i++) await addDeny(moat, `burst${i}.change.test`);
  const burstMs = performance.now() - b0;
  await blockedEverywhere(moat, `burst${BURST - 1}.change.test`, performance.now());
  await Bun.sleep(500);
  console.log(
    `${BURST} entries added one by one: ${ms(burstMs)} (${ms(burstMs / BURST)} each), ${snapshotsBuilt(moat) - built0} snapshots logged`,
  );
} finally {
  await moat.stop();
  rmSync(dir, { recursive: true, force: true });
}

// The per-query cost of family controls on the DNS decision (src/dns/policy.ts), in one process and one
// run: the same realistic mix of names (55% popular names on no list, 22% names on the hosts list, 8%
// subdomains of ABP entries, 10% AAAA of popular names, 5% service domains) from clients in five groups,
// judged by a snapshot without family controls and by one with ten blocked services, an open schedule
// window (blocking two more services), safe search and a paused client elsewhere. Rounds alternate so
// drift hits both alike; prints ns per query for each and the difference.
// Run: node_modules/.bin/bun bench/filter/family.ts [names on the lists] [queries per round]  (default 200000 20000)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSnapshotData } from "../../src/filter/build.ts";
import { POLICIES } from "../../src/policies/registry.ts";
import { Snapshot } from "../../src/filter/snapshot.ts";
import { defaults } from "../../src/config/schema.ts";
import { PolicyHandler } from "../../src/dns/policy.ts";
import type { ConfigView, QueryContext } from "../../src/dns/context.ts";
import { parseQuery } from "../../src/dns/wire.ts";
import { makeDb, mix } from "./family-fixture.ts";

const LIST = Number(process.argv[2] ?? 200000);
const QUERIES = Number(process.argv[3] ?? 20000);
const ROUNDS = 30;

const dirs = [mkdtempSync(join(tmpdir(), "moat-bench-")), mkdtempSync(join(tmpdir(), "moat-bench-"))];
try {
  const plainDb = makeDb(dirs[0]!, false, LIST);
  const familyDb = makeDb(dirs[1]!, true, LIST);
  const snaps = {
    without: new Snapshot(buildSnapshotData(plainDb, POLICIES.list), POLICIES, Date.now()),
    with: new Snapshot(buildSnapshotData(familyDb, POLICIES.list), POLICIES, Date.now()),
  };
  const queries = mix(plainDb, QUERIES);
  const config = defaults();
  const view = { current: config, subscribe: () => () => {} } as unknown as ConfigView;
  const policy = new PolicyHandler(view, { active: true });
  const answer = new Uint8Array(64);
  const next = () => answer;
  const ctxs = (snap: Snapshot): QueryContext[] =>
    queries.map((q) => ({
      query: q.wire,
      q: parseQuery(q.wire),
      client: q.client,
      clientId: null,
      tcp: false,
      start: 0,
      snapshot: snap,
      status: 0,
      reply: 0,
      upstream: null,
      listId: null,
      ede: -1,
      cname: null,
      upstreamMessage: null,
      cnameChain: null,
      upstreamSet: 0,
      dnssec: 0,
      background: false,
    }));
  const sets = { without: ctxs(snaps.without), with: ctxs(snaps.with) };
  const blocked = { without: 0, with: 0 };
  const round = (k: "without" | "with") => {
    const t0 = Bun.nanoseconds();
    let b = 0;
    for (const c of sets[k]) {
      c.listId = null;
      if (policy.handle(c, next) !== answer) b++;
    }
    blocked[k] = b;
    return (Bun.nanoseconds() - t0) / sets[k].length;
  };
  for (let i = 0; i < 3; i++) round("without"), round("with"); // warm-up (JIT)
  const ns = { without: [] as number[], with: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    // alternate which goes first, so neither always runs after a collection the other caused
    if (i % 2) {
      ns.without.push(round("without"));
      ns.with.push(round("with"));
    } else {
      ns.with.push(round("with"));
      ns.without.push(round("without"));
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const min = (x: number[]) => Math.min(...x);
  const a = median(ns.without),
    b = median(ns.with);
  console.log(`list ${LIST} names, ${QUERIES} queries per round, ${ROUNDS} rounds each (median; fastest):`);
  console.log(
    `  without family controls: ${a.toFixed(0)}; ${min(ns.without).toFixed(0)} ns/query (${blocked.without} blocked per round)`,
  );
  console.log(
    `  with family controls:    ${b.toFixed(0)}; ${min(ns.with).toFixed(0)} ns/query (${blocked.with} blocked per round)`,
  );
  console.log(
    `  difference: ${(((b - a) / a) * 100).toFixed(1)}% (median), ${(((min(ns.with) - min(ns.without)) / min(ns.without)) * 100).toFixed(1)}% (fastest)`,
  );
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

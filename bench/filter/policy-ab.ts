// The policy step (src/dns/policy.ts's handle) of this checkout against another's, in one process: both load
// the same database (bench/filter/family-fixture.ts, with every family control) and judge the same queries, in
// alternating rounds, so the load of a shared machine hits both alike. Prints ns per query (median and fastest
// of the rounds) and the blocked count, which must be the same.
// Run: node_modules/.bin/bun bench/filter/policy-ab.ts <other checkout> [names on the lists] [queries per round]
// (the other checkout needs node_modules; default 200000 20000)
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaults } from "../../src/config/schema.ts";
import { parseQuery } from "../../src/dns/wire.ts";
import { makeDb, mix } from "./family-fixture.ts";

const OTHER = resolve(process.argv[2] ?? "");
const LIST = Number(process.argv[3] ?? 200000);
const QUERIES = Number(process.argv[4] ?? 20000);
const ROUNDS = 40;
if (!existsSync(join(OTHER, "src/dns/policy.ts")))
  throw new Error("usage: policy-ab.ts <other checkout> [list] [queries]");

type Handle = (ctx: object, next: () => Uint8Array) => unknown;

/** The policy step of the checkout at `root`, judging by a snapshot of `db` (with or without a policy registry). */
async function stepOf(root: string, db: string): Promise<{ handle: Handle; snapshot: object }> {
  const { buildSnapshotData } = await import(join(root, "src/filter/build.ts"));
  const { Snapshot } = await import(join(root, "src/filter/snapshot.ts"));
  const { PolicyHandler } = await import(join(root, "src/dns/policy.ts"));
  const reg = join(root, "src/policies/registry.ts");
  const snapshot = existsSync(reg)
    ? new Snapshot(buildSnapshotData(db, (await import(reg)).POLICIES.list), (await import(reg)).POLICIES, Date.now())
    : new Snapshot(buildSnapshotData(db), Date.now());
  const policy = new PolicyHandler({ current: defaults(), subscribe: () => () => {} }, { active: true });
  return { handle: (ctx, next) => policy.handle(ctx, next), snapshot };
}

const dir = mkdtempSync(join(tmpdir(), "moat-bench-"));
try {
  const db = makeDb(dir, true, LIST);
  const queries = mix(db, QUERIES);
  const steps = { this: await stepOf(resolve(import.meta.dir, "../.."), db), other: await stepOf(OTHER, db) };
  const answer = new Uint8Array(64);
  const next = () => answer;
  const ctxs = (snapshot: object) =>
    queries.map((q) => ({
      query: q.wire,
      q: parseQuery(q.wire),
      client: q.client,
      clientId: null,
      tcp: false,
      start: 0,
      snapshot,
      status: 0,
      reply: 0,
      upstream: null,
      listId: null as number | null,
      ede: -1,
      cname: null,
      upstreamMessage: null,
      cnameChain: null,
      upstreamSet: 0,
      dnssec: 0,
      background: false,
    }));
  const sets = { this: ctxs(steps.this.snapshot), other: ctxs(steps.other.snapshot) };
  const blocked = { this: 0, other: 0 };
  const round = (k: "this" | "other") => {
    const { handle } = steps[k];
    const t0 = Bun.nanoseconds();
    let b = 0;
    for (const c of sets[k]) {
      c.listId = null;
      if (handle(c, next) !== answer) b++;
    }
    blocked[k] = b;
    return (Bun.nanoseconds() - t0) / sets[k].length;
  };
  for (let i = 0; i < 3; i++) round("this"), round("other"); // warm-up (JIT)
  const ns = { this: [] as number[], other: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    const order: Array<"this" | "other"> = i % 2 ? ["this", "other"] : ["other", "this"];
    for (const k of order) ns[k].push(round(k));
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  console.log(`list ${LIST} names, ${QUERIES} queries per round, ${ROUNDS} rounds each (median; fastest):`);
  for (const k of ["other", "this"] as const)
    console.log(
      `  ${k === "this" ? "this checkout " : `${OTHER}`}: ${median(ns[k]).toFixed(0)}; ${Math.min(...ns[k]).toFixed(0)} ns/query (${blocked[k]} blocked per round)`,
    );
  console.log(
    `  difference: ${(((median(ns.this) - median(ns.other)) / median(ns.other)) * 100).toFixed(1)}% (median)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

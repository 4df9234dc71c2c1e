// Writer cost per record: the query writer thread's write of its queue into the long-term database
// (pihole-FTL.db's layout and Moat's indexes): the batches as they arrive from the main thread
// (src/query/record-batch.ts, 8192 records each) written 50k records at a time, as the thread does
// on a busy network, with its heap collected every 32k records (src/querylog/writer-worker.ts).
// Each database has the page cache its tree's writer gives it (SQLite's default here; a revision that
// exported WRITER_CACHE_KIB, that); --cache-kib N gives every database that one instead (to tell the
// cache's share from the rest).
//
// With --against REV, the same records also go through REV's writer path (its store.ts and
// record-batch.ts, read with `git archive`: decodeBatch + insert() before the columnar insert). Each
// path runs in a process of its own, so each one's CPU time (process.cpuUsage: its thread and its
// collector's) is its own, and they take turns write by write (A B, B A, ...) so a loaded machine
// weighs on both alike; the two databases are compared row by row at the end.
// --prefill N starts both databases with N older queries over the same 100k names (made in SQL): a
// database that has lived a while, whose indexes outgrow the page cache (prefill.ts). --names N: the
// queries ask N domains (100k by default, the prefill's), skewed alike; more make more new names.
// --mix: the domains as bench/mix/data.ts draws them instead (its default sizes): 65% from 100k popular
// names on a Zipf curve, 22% from 150k list names, 8% subdomains of 60k more, 5% names never seen before:
// a popular head and a long tail, ~300k distinct names in 1M queries, more than the writer caches.
// Usage: bun bench/querylog/insert.ts [--records 300000] [--against REV] [--collect-every 32768] [--cache-kib N]
//   [--prefill 0] [--names 100000] [--mix]
import { Database } from "bun:sqlite";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { initQueryDb } from "../../src/db/index.ts";
import { Reply, Status } from "../../src/query/enums.ts";
import { encodeBatch, type RecordBatch } from "../../src/query/record-batch.ts";
import type { StoredRecord } from "../../src/query/record.ts";
import { QueryStore } from "../../src/querylog/store.ts";
import { mixDomains } from "./mix-names.ts";
import { DOMAINS, prefillQueries } from "./prefill.ts";

const { values: opt } = parseArgs({
  options: {
    records: { type: "string", default: "300000" },
    prefill: { type: "string", default: "0" },
    names: { type: "string", default: String(DOMAINS) },
    mix: { type: "boolean", default: false },
    against: { type: "string" },
    "collect-every": { type: "string", default: "32768" },
    "cache-kib": { type: "string" },
    // a path's own process: its database file, and the tree whose writer it runs ("" = this one)
    child: { type: "string" },
    tree: { type: "string" },
  },
});
const N = Number(opt.records);
const COLLECT_EVERY = Number(opt["collect-every"]);
const cacheKib = opt["cache-kib"] === undefined ? undefined : Number(opt["cache-kib"]);
/** records per write: the writer thread's EARLY_WRITE */
const WRITE = 50_000;
/** records per batch from the main thread: QueryWriter's BATCH */
const BATCH = 8192;
const PREFILL = Number(opt.prefill);
/** the domains the queries draw from: past the prefill's DOMAINS, names the database has not seen */
const NAMES = Number(opt.names);
/** the warm-up's records come before */
const FIRST_ID = PREFILL + 1001;

/** A home network's mix: skewed domains, 40 clients, 40% forwarded, some blocked (a few by CNAME). */
function generator(): (n: number, firstId: number) => StoredRecord[] {
  let seed = 2463534242;
  const rnd = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 4294967296);
  const now = 1_750_000_000;
  const drawMix = opt.mix ? mixDomains(rnd) : null;
  return (n, firstId) => {
    const out: StoredRecord[] = [];
    for (let i = 0; i < n; i++) {
      const [mixed, listed] = drawMix ? drawMix() : [null, false];
      const d = mixed ? mixed.length * 7 + mixed.charCodeAt(1) : Math.floor(NAMES * rnd() ** 3);
      const x = rnd();
      const fwd = !listed && x < 0.4;
      const blocked = listed || (!mixed && x > 0.9);
      const byCname = blocked && x > 0.99;
      out.push({
        id: firstId + i,
        r: {
          time: now - 3600 + (firstId + i) / 1000,
          type: rnd() < 0.1 ? 2 : 1,
          domain: mixed ?? `d${d}.site${d % 13}.example`,
          client: `192.168.1.${Math.floor(rnd() * 40)}`,
          status: byCname ? Status.GRAVITY_CNAME : blocked ? Status.GRAVITY : fwd ? Status.FORWARDED : Status.CACHE,
          reply: blocked ? Reply.NODATA : Reply.IP,
          replyTime: fwd ? 12.5 + rnd() : 0.05,
          upstream: fwd ? "127.0.0.1#53" : null,
          dnssec: 0,
          listId: blocked ? Math.floor(rnd() * 5) : null,
          ede: -1,
          cname: byCname ? `cdn${d % 7}.tracker.example` : null,
          // what the engine writes (src/dns/answer-text.ts): a blocked query's 0.0.0.0, a CNAME chain now and then
          answers: blocked
            ? "A 0.0.0.0"
            : d % 4 === 0
              ? `CNAME edge${d % 97}.cdn.example, A 192.0.2.${d % 250}, A 192.0.2.${(d + 1) % 250}`
              : `A 198.51.100.${d % 250}`,
        },
      });
    }
    return out;
  };
}

/** The queue of one write, as the writer thread holds it: batches of the main thread's size. */
function queueOf(recs: StoredRecord[]): RecordBatch[] {
  const queue: RecordBatch[] = [];
  for (let i = 0; i < recs.length; i += BATCH) queue.push(encodeBatch(recs.slice(i, i + BATCH)));
  return queue;
}

/** What a child reports for one write. */
interface WriteCost {
  userUs: number;
  sysUs: number;
  gcUs: number;
}

/** A path's process: opens its database, then writes when told to and reports the CPU it took. */
async function child(file: string, tree: string): Promise<void> {
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  if (!PREFILL) initQueryDb(db);
  let write: (queue: RecordBatch[]) => void;
  let cache = cacheKib;
  if (!tree) {
    const store = new QueryStore(db);
    write = (queue) => store.insertBatches(queue);
  } else {
    // that tree's own writer path: its columnar insertBatches where it has one, else decodeBatch + insert
    const mod = (await import(join(tree, "src/querylog/store.ts"))) as {
      WRITER_CACHE_KIB?: number;
      QueryStore: new (db: Database) => { insert(r: StoredRecord[]): void; insertBatches?: (b: RecordBatch[]) => void };
    };
    cache ??= mod.WRITER_CACHE_KIB;
    const { decodeBatch } = (await import(join(tree, "src/query/record-batch.ts"))) as {
      decodeBatch(b: RecordBatch): StoredRecord[];
    };
    const store = new mod.QueryStore(db);
    const columnar = store.insertBatches?.bind(store);
    write = columnar
      ? (queue) => columnar(queue)
      : (queue) => {
          const all: StoredRecord[] = [];
          for (const b of queue) for (const r of decodeBatch(b)) all.push(r);
          store.insert(all);
        };
  }
  if (cache !== undefined) db.exec(`PRAGMA cache_size = -${cache}`);
  const records = generator();
  // warm: the id maps and the statements
  write(queueOf(records(1000, PREFILL + 1)));
  let sinceCollect = 0;
  process.on("message", (m: { first: number; count: number } | "close") => {
    if (m === "close") {
      db.close();
      process.exit(0);
    }
    // the batches arrive as copies made for this write (transferred from the main thread)
    const queue = queueOf(records(m.count, m.first));
    const c0 = process.cpuUsage();
    write(queue);
    const c1 = process.cpuUsage(c0);
    const cost: WriteCost = { userUs: c1.user, sysUs: c1.system, gcUs: 0 };
    sinceCollect += m.count;
    if (sinceCollect >= COLLECT_EVERY) {
      sinceCollect = 0;
      const g0 = process.cpuUsage();
      Bun.gc(true);
      const g1 = process.cpuUsage(g0);
      cost.gcUs = g1.user + g1.system;
    }
    process.send?.(cost);
  });
  process.send?.("ready");
}

/**
 * Rows of both databases as text (quote() tells 1 from 1.0) that the other lacks, with their names
 * joined in: a write may give its new names their ids in another order.
 */
function differences(a: string, b: string): number {
  const db = new Database(a, { readonly: true });
  db.exec(`ATTACH '${b}' AS other`);
  const row = (s: string) =>
    `SELECT quote(q.id)||','||quote(q.timestamp)||','||quote(q.type)||','||quote(q.status)||','||quote(d.domain)||','||quote(c.ip)||','||
       quote(c.name)||','||quote(f.forward)||','||quote(x.type)||','||quote(x.content)||','||quote(q.reply_type)||','||quote(q.reply_time)||','||
       quote(q.dnssec)||','||quote(q.list_id)||','||quote(q.ede)
     FROM ${s}.query_storage q JOIN ${s}.domain_by_id d ON d.id = q.domain JOIN ${s}.client_by_id c ON c.id = q.client
     LEFT JOIN ${s}.forward_by_id f ON f.id = q.forward LEFT JOIN ${s}.addinfo_by_id x ON x.id = q.additional_info`;
  const count = (x: string, y: string) =>
    (
      db.query(`SELECT COUNT(*) AS n FROM (SELECT * FROM (${row(x)}) EXCEPT SELECT * FROM (${row(y)}))`).get() as {
        n: number;
      }
    ).n;
  // and the names no row mentions, which neither write should leave
  const names = (s: string) =>
    `SELECT 'd'||domain FROM ${s}.domain_by_id UNION ALL SELECT 'c'||ip||quote(name) FROM ${s}.client_by_id
     UNION ALL SELECT 'f'||forward FROM ${s}.forward_by_id UNION ALL SELECT 'a'||type||content FROM ${s}.addinfo_by_id`;
  const countNames = (x: string, y: string) =>
    (
      db.query(`SELECT COUNT(*) AS n FROM (SELECT * FROM (${names(x)}) EXCEPT SELECT * FROM (${names(y)}))`).get() as {
        n: number;
      }
    ).n;
  const n = count("main", "other") + count("other", "main") + countNames("main", "other") + countNames("other", "main");
  db.close();
  return n;
}

interface PathProcess {
  name: string;
  file: string;
  proc: ReturnType<typeof Bun.spawn>;
  next: Promise<unknown>;
  resolve: (m: unknown) => void;
  userUs: number;
  sysUs: number;
  gcUs: number;
}

function start(name: string, file: string, tree: string): PathProcess {
  const p = { name, file, userUs: 0, sysUs: 0, gcUs: 0 } as PathProcess;
  let failed: ((e: Error) => void) | null = null;
  const expect = () => {
    p.next = new Promise((resolve, reject) => {
      p.resolve = resolve;
      failed = reject;
    });
  };
  expect();
  const args = [
    "--child",
    file,
    "--tree",
    tree,
    "--collect-every",
    String(COLLECT_EVERY),
    "--prefill",
    String(PREFILL),
    "--names",
    String(NAMES),
  ];
  if (opt.mix) args.push("--mix");
  if (cacheKib !== undefined) args.push("--cache-kib", String(cacheKib));
  p.proc = Bun.spawn([process.execPath, import.meta.path, ...args], {
    stdio: ["ignore", "inherit", "inherit"],
    ipc(m) {
      const resolve = p.resolve;
      expect();
      resolve(m);
    },
  });
  // a path that dies ends the run instead of leaving it waiting
  void p.proc.exited.then((code) => {
    if (code !== 0) failed?.(new Error(`${name}: its process exited with ${code}`));
  });
  return p;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "moat-bench-insert-"));
  try {
    if (PREFILL) {
      prefillQueries(join(dir, "current.db"), PREFILL, 1_700_000_000);
      if (opt.against) copyFileSync(join(dir, "current.db"), join(dir, "baseline.db"));
    }
    const paths = [start("this tree", join(dir, "current.db"), "")];
    if (opt.against) {
      const tree = join(dir, "baseline");
      execFileSync("sh", ["-c", `mkdir -p '${tree}' && git archive '${opt.against}' src | tar -x -C '${tree}'`]);
      paths.push(start(opt.against, join(dir, "baseline.db"), tree));
    }
    for (const p of paths) await p.next;
    let writes = 0;
    for (let first = FIRST_ID; first < N + FIRST_ID; first += WRITE) {
      const count = Math.min(WRITE, N + FIRST_ID - first);
      for (const p of writes++ % 2 ? [...paths].reverse() : paths) {
        p.proc.send({ first, count });
        const c = (await p.next) as WriteCost;
        p.userUs += c.userUs;
        p.sysUs += c.sysUs;
        p.gcUs += c.gcUs;
      }
    }
    for (const p of paths) {
      p.proc.send("close");
      await p.proc.exited;
    }
    const cache = cacheKib === undefined ? "each tree's own" : `${cacheKib} KiB`;
    console.log(
      `${N} records${PREFILL ? ` after ${PREFILL} older ones` : ""}, writes of ${WRITE}, collection every ${COLLECT_EVERY} records, page cache ${cache} (CPU µs per record):`,
    );
    const total = (p: PathProcess) => (p.userUs + p.sysUs + p.gcUs) / N;
    for (const p of paths)
      console.log(
        `  ${p.name.padEnd(12)} write ${((p.userUs + p.sysUs) / N).toFixed(2)} (system ${(p.sysUs / N).toFixed(2)})  collection ${(p.gcUs / N).toFixed(2)}  total ${total(p).toFixed(2)}`,
      );
    if (paths.length === 2) {
      const [a, b] = paths as [PathProcess, PathProcess];
      console.log(`  this tree / ${b.name}: ${(total(a) / total(b)).toFixed(2)}`);
      console.log(`  rows that differ between the two databases: ${differences(a.file, b.file)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (opt.child) await child(opt.child, opt.tree ?? "");
else await main();

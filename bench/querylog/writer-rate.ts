// The query writer thread's CPU per query at a fixed rate, as a busy network gives it (bench/mix's 10k QPS),
// without the DNS server: the real QueryWriter and its thread (src/querylog/writer.ts) on a file in /dev/shm
// (where bench/mix keeps the query log), records handed over in its batches (100, or 100 ms after the first) as
// the statistics thread does, a write every --interval seconds (database.DBinterval) and at 50k queued.
// The names are the mix's kind: --names popular domains, skewed, 40 clients, most answers alike
// (bench/mix's upstream answers every name with 192.0.2.1). Prints each thread's CPU µs per query
// (bench/mix/measure.ts threadShare), the writer thread's among them.
// --mix: the names of bench/mix's query file instead (mix-names.ts), more than the writer caches.
// --prefill N: the file starts with N older queries (prefill.ts), as after a day of the mix's fill.
// --flood N: N records handed over at once just before the clock starts, as bench/mix's throughput run
// leaves them queued for the thread (which runs at idle priority, so a flood starves it) when its
// fixed-rate run begins: their write then falls in the measured time.
// Usage: bun bench/querylog/writer-rate.ts [--qps 10000] [--seconds 20] [--interval 60] [--names 100000]
//   [--prefill 0] [--flood 0] [--mix]
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { initQueryDb } from "../../src/db/index.ts";
import { Reply, Status } from "../../src/query/enums.ts";
import type { QueryRecord } from "../../src/query/record.ts";
import { QueryWriter } from "../../src/querylog/writer.ts";
import { threadCpu, threadShare } from "../mix/measure.ts";
import { mixDomains } from "./mix-names.ts";
import { prefillQueries } from "./prefill.ts";

const { values: opt } = parseArgs({
  options: {
    qps: { type: "string", default: "10000" },
    seconds: { type: "string", default: "20" },
    interval: { type: "string", default: "60" },
    names: { type: "string", default: "100000" },
    prefill: { type: "string", default: "0" },
    flood: { type: "string", default: "0" },
    mix: { type: "boolean", default: false },
  },
});
const QPS = Number(opt.qps);
const SECONDS = Number(opt.seconds);
const NAMES = Number(opt.names);
const PREFILL = Number(opt.prefill);

const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "moat-writer-rate-"));
const file = join(dir, "pihole-FTL.db");
if (PREFILL) prefillQueries(file, PREFILL, Math.floor(Date.now() / 1000) - 86_400);
else {
  const db = new Database(file, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  initQueryDb(db);
  db.close();
}

const writer = new QueryWriter({ diskPath: file, log: (_l, m) => console.error(m) });
writer.start();
// the thread opens the file behind the start: wait for that before the clock starts
writer.flushDisk(365 * 86_400, Date.now() / 1000, true);

let seed = 2463534242;
const rnd = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 4294967296);
const r: QueryRecord = {
  time: 0,
  type: 1,
  domain: "",
  client: "",
  status: Status.CACHE,
  reply: Reply.IP,
  replyTime: 0.05,
  upstream: null,
  dnssec: 0,
  listId: null,
  ede: -1,
  cname: null,
  answers: null,
};
let id = PREFILL + 1;
const drawMix = opt.mix ? mixDomains(rnd) : null;
function one(): void {
  const [mixed, listed] = drawMix ? drawMix() : [null, false];
  const d = Math.floor(NAMES * rnd() ** 3);
  const x = rnd();
  const blocked = mixed ? listed : x > 0.8;
  r.time = Date.now() / 1000;
  r.domain = mixed ?? `d${d}.site${d % 13}.example`;
  r.client = `192.168.1.${Math.floor(rnd() * 40)}`;
  r.status = blocked ? Status.GRAVITY : x < 0.3 ? Status.FORWARDED : Status.CACHE;
  r.reply = blocked ? Reply.IP : Reply.IP;
  r.upstream = !blocked && x < 0.3 ? "127.0.0.1#5300" : null;
  r.listId = blocked ? 1 : null;
  r.answers = blocked ? "A 0.0.0.0" : "A 192.0.2.1";
  writer.add(id++, r);
}

for (let i = 0; i < Number(opt.flood); i++) one();
writer.send();
const before = threadCpu(process.pid);
const t0 = performance.now();
let sent = 0;
const firstId = id;
let lastWrite = t0;
const total = QPS * SECONDS;
while (sent < total) {
  const now = performance.now();
  const due = Math.min(total, Math.floor(((now - t0) / 1000) * QPS));
  while (sent < due) {
    one();
    sent++;
  }
  if (now - lastWrite >= Number(opt.interval) * 1000) {
    lastWrite = now;
    writer.flushDisk(365 * 86_400, Date.now() / 1000, false);
  }
  await Bun.sleep(1);
}
writer.send();
// what is queued goes to the file as at a DBinterval, so every query costs its write
writer.flushDisk(365 * 86_400, Date.now() / 1000, true);
const after = threadCpu(process.pid);
console.log(
  `${sent} queries (+ ${opt.flood} flooded before) at ${QPS} QPS over ${((performance.now() - t0) / 1000).toFixed(1)} s, prefill ${PREFILL}, ${opt.mix ? "the mix's" : NAMES} names; CPU µs per query by thread: ${threadShare(before, after, id - firstId)}`,
);
writer.stop(365 * 86_400, Date.now() / 1000);
// the file once the thread has checkpointed and closed it: what the query log costs the tmpfs a query
const bytes = statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
console.log(`file ${(bytes / 2 ** 20).toFixed(1)} MiB: ${(bytes / (id - 1)).toFixed(1)} bytes per stored query`);
rmSync(dir, { recursive: true, force: true });

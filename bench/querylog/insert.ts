// Writer cost per record: QueryStore.insert() into the long-term database (pihole-FTL.db's layout and
// Moat's indexes), in transactions of several sizes (the writer thread writes 50k at once on a busy
// network, everything queued every database.DBinterval seconds on a quiet one).
// Usage: bun bench/querylog/insert.ts [records=200000]
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QUERY_SCHEMA } from "../../src/db/query-schema.ts";
import { Reply, Status } from "../../src/query/enums.ts";
import type { StoredRecord } from "../../src/query/record.ts";
import { QueryStore } from "../../src/querylog/store.ts";

const N = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), "moat-bench-insert-"));
let seed = 2463534242;
const rnd = () => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) / 4294967296);
const now = Math.floor(Date.now() / 1000);

function records(n: number, firstId: number): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (let i = 0; i < n; i++) {
    const d = Math.floor(100_000 * rnd() ** 3);
    const fwd = rnd() < 0.4;
    out.push({
      id: firstId + i,
      r: {
        time: now - 3600 + i / 1000,
        type: rnd() < 0.1 ? 2 : 1,
        domain: `d${d}.site${d % 13}.example`,
        client: `192.168.1.${Math.floor(rnd() * 40)}`,
        status: fwd ? Status.FORWARDED : Status.CACHE,
        reply: Reply.IP,
        replyTime: fwd ? 12.5 : 0.05,
        upstream: fwd ? "127.0.0.1#53" : null,
        dnssec: 0,
        listId: null,
        ede: -1,
        cname: null,
      },
    });
  }
  return out;
}

function open(name: string): QueryStore {
  const db = new Database(join(dir, name), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(QUERY_SCHEMA);
  return new QueryStore(db);
}

for (const batch of [100, 1000, 4096, 50_000]) {
  const store = open(`disk-${batch}.db`);
  // warm: the id maps and the statement cache
  store.insert(records(Math.min(batch, 1000), 1));
  const all = records(N, 1001);
  const t0 = performance.now();
  for (let i = 0; i < all.length; i += batch) store.insert(all.slice(i, i + batch));
  const ms = performance.now() - t0;
  console.log(`long-term batch ${String(batch).padStart(5)}: ${((ms * 1000) / N).toFixed(2)} µs/record`);
  store.db.close();
}
rmSync(dir, { recursive: true, force: true });

// One gravity run (reference §7.2): download every enabled list, parse it into fresh tables beside
// the live ones and swap them in with one short transaction. Anything that fails before the swap
// drops the fresh tables, so the running filter keeps the last good gravity.
import type { Database } from "bun:sqlite";
import { fetchList, ListStatus, type Limits } from "./download.ts";
import { parseList } from "./parse.ts";

export interface GravityResult {
  ok: boolean;
  lists: number;
  /** rows in gravity (duplicates across lists included) */
  gravityRows: number;
  /** distinct gravity domains (info.gravity_count) */
  unique: number;
  antigravityRows: number;
  ms: number;
}

interface ListRow {
  id: number;
  address: string;
  type: number;
}

const BUILD = { gravity: "gravity_build", antigravity: "antigravity_build" } as const;
const decoder = new TextDecoder("utf-8");

function createBuildTables(db: Database): void {
  for (const t of Object.values(BUILD)) {
    db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.exec(`CREATE TABLE ${t} (domain TEXT NOT NULL, adlist_id INTEGER NOT NULL REFERENCES adlist (id))`);
  }
}

function dropBuildTables(db: Database): void {
  try {
    for (const t of Object.values(BUILD)) db.exec(`DROP TABLE IF EXISTS ${t}`);
  } catch {
    // best effort: the next run drops them again
  }
}

/** Inserts in batches of multi-row statements: far fewer statement steps than one row at a time. */
class Inserter {
  private pending: Array<string | number> = [];
  private readonly stmt;
  private static readonly ROWS = 400;
  count = 0;
  constructor(private readonly db: Database, private readonly table: string) {
    this.stmt = db.prepare(`INSERT INTO ${table} (domain, adlist_id) VALUES ${Array(Inserter.ROWS).fill("(?, ?)").join(", ")}`);
  }
  add(domain: string, id: number): void {
    this.pending.push(domain, id);
    this.count++;
    if (this.pending.length === Inserter.ROWS * 2) {
      this.stmt.run(...this.pending);
      this.pending = [];
    }
  }
  flush(): void {
    if (this.pending.length === 0) return;
    const rows = this.pending.length / 2;
    this.db.prepare(`INSERT INTO ${this.table} (domain, adlist_id) VALUES ${Array(rows).fill("(?, ?)").join(", ")}`).run(...this.pending);
    this.pending = [];
  }
}

export async function runGravity(db: Database, dataDir: string, limits: Limits, out: (line: string) => void): Promise<GravityResult> {
  const t0 = performance.now();
  db.exec("PRAGMA foreign_keys = OFF");
  const lists = db.query("SELECT id, address, type FROM adlist WHERE enabled = 1 ORDER BY id").all() as ListRow[];
  out(`  [i] Gravity update of ${lists.length} list${lists.length === 1 ? "" : "s"}`);
  createBuildTables(db);
  const stats = new Map<number, { status: number; valid: number; invalid: number; abp: number }>();
  const block = new Inserter(db, BUILD.gravity);
  const allow = new Inserter(db, BUILD.antigravity);
  let abpSeen = false;
  try {
    for (const l of lists) {
      out(`  [i] Target: ${l.address}`);
      const f = await fetchList(dataDir, l.id, l.address, limits);
      out(`  [${f.status === ListStatus.updated || f.status === ListStatus.unchanged ? "✓" : "✗"}] Status: ${f.message}`);
      if (!f.bytes) {
        stats.set(l.id, { status: f.status, valid: 0, invalid: 0, abp: 0 });
        continue;
      }
      const ins = l.type === 1 ? allow : block;
      const counts = db.transaction(() => parseList(decoder.decode(f.bytes!), l.type === 1 ? "allow" : "block", (d) => ins.add(d, l.id)))();
      db.transaction(() => ins.flush())();
      if (counts.abp > 0) abpSeen = true;
      stats.set(l.id, { status: f.status, valid: counts.valid, invalid: counts.invalid, abp: counts.abp });
      out(`  [i] Imported ${counts.valid} domains${counts.abp ? ` and ${counts.abp} ABP entries` : ""}, ignoring ${counts.invalid} non-domain entries`);
      if (counts.samples.length) out(`      Sample of non-domain entries: ${counts.samples.join(", ")}`);
    }
    out("  [i] Building the index");
    const suffix = Date.now().toString(36);
    db.exec(`CREATE INDEX idx_gravity_${suffix} ON ${BUILD.gravity} (domain, adlist_id)`);
    db.exec(`CREATE INDEX idx_antigravity_${suffix} ON ${BUILD.antigravity} (domain, adlist_id)`);
    const unique = (db.query(`SELECT COUNT(DISTINCT domain) AS n FROM ${BUILD.gravity}`).get() as { n: number }).n;
    const now = Math.floor(Date.now() / 1000);
    db.transaction(() => {
      // legacy rename: the views name "gravity" and must not be re-checked while it is absent
      db.exec("PRAGMA legacy_alter_table = ON");
      db.exec("DROP TABLE gravity");
      db.exec(`ALTER TABLE ${BUILD.gravity} RENAME TO gravity`);
      db.exec("DROP TABLE antigravity");
      db.exec(`ALTER TABLE ${BUILD.antigravity} RENAME TO antigravity`);
      const upd = db.query("UPDATE adlist SET number = ?, invalid_domains = ?, abp_entries = ?, status = ? WHERE id = ?");
      const touched = db.query("UPDATE adlist SET date_updated = ? WHERE id = ?");
      for (const [id, s] of stats) {
        upd.run(s.valid, s.invalid, s.abp, s.status, id);
        if (s.status === ListStatus.updated) touched.run(now, id);
      }
      const setInfo = db.query("INSERT INTO info (property, value) VALUES (?, ?) ON CONFLICT(property) DO UPDATE SET value = excluded.value");
      setInfo.run("updated", String(now));
      setInfo.run("gravity_count", String(unique));
      setInfo.run("abp_domains", abpSeen ? "1" : "0");
    })();
    db.exec("PRAGMA legacy_alter_table = OFF");
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // readers may hold the WAL; it is checkpointed later
    }
    const result: GravityResult = { ok: true, lists: lists.length, gravityRows: block.count, unique, antigravityRows: allow.count, ms: Math.round(performance.now() - t0) };
    out(`  [i] Number of gravity domains: ${block.count} (${unique} unique domains)`);
    out(`  [i] Number of allowed domains from allow lists: ${allow.count}`);
    out(`  [✓] Done in ${(result.ms / 1000).toFixed(1)} s.`);
    return result;
  } catch (e) {
    dropBuildTables(db);
    throw e;
  } finally {
    db.exec("PRAGMA foreign_keys = ON");
  }
}

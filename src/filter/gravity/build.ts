// One gravity run, as Pi-hole's gravity.sh does it: download every enabled list, parse it into fresh tables beside
// the live ones and swap them in with one short transaction. Anything that fails before the swap
// drops the fresh tables, so the running filter keeps the last good gravity.
// The parsed names also go straight into the filter's compact sets, which de-duplicate them (only
// new (domain, list) pairs reach SQLite) and are written as <data dir>/gravity.snapshot keyed by
// this run, so the DNS engine loads them from that file instead of re-reading the gravity table.
import type { Database } from "bun:sqlite";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fetchList, ListStatus, type Limits } from "./download.ts";
import { badfilterLines, countLines, parseFile } from "./parse.ts";
import { writeListRules, type ListRules } from "./tables.ts";
import { badfilterTarget, parseRule } from "../rule-syntax.ts";
import { ComboTable, DomainSetBuilder, WireScratch } from "../domainset-build.ts";
import { FileMemory, type BuildMemory } from "../build-memory.ts";
import { snapshotKey, writeSnapshotFile } from "../snapshot-file.ts";
import { GRAVITY_BUILD_TABLES } from "../../db/gravity-schema.ts";
import { adlistIds, enabledAdlists, recordAdlistResults, type AdlistResult } from "../../lists/adlists.ts";

export interface GravityResult {
  ok: boolean;
  lists: number;
  /** rows in gravity (duplicates across lists included) */
  gravityRows: number;
  /** distinct gravity domains (info.gravity_count) */
  unique: number;
  antigravityRows: number;
  ms: number;
  /** wall ms per phase (the bench prints them) */
  phases: Record<string, number>;
  snapshotBytes: number;
}

const BUILD = GRAVITY_BUILD_TABLES;

function createBuildTables(db: Database): void {
  for (const t of Object.values(BUILD)) {
    db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.exec(`CREATE TABLE ${t} (domain TEXT NOT NULL, adlist_id INTEGER NOT NULL REFERENCES adlist (id))`);
  }
}

/**
 * A list removed while the run was going (src/lists/adlists.ts deletes its rows from the build tables
 * as they were then) may have had rows added after that, unchecked: foreign keys are off here.
 */
function dropRowsOfRemovedLists(db: Database, lists: ReadonlyArray<{ id: number; type: number }>): void {
  const present = adlistIds(db);
  for (const l of lists)
    if (!present.has(l.id))
      db.run(`DELETE FROM ${l.type === 1 ? BUILD.antigravity : BUILD.gravity} WHERE adlist_id = ?`, [l.id]);
}

export function dropBuildTables(db: Database): void {
  try {
    for (const t of Object.values(BUILD)) db.exec(`DROP TABLE IF EXISTS ${t}`);
  } catch {
    // best effort: the next run drops them again
  }
}

/**
 * Inserts in batches: the entries of one list as a JSON array of strings written straight from the
 * parser's bytes and expanded by json_each, so no JS string exists per row (entries are validated
 * names or ABP entries: nothing in them needs escaping).
 */
class Inserter {
  private readonly buf = new Uint8Array(1 << 16);
  private len = 0;
  private id = 0;
  private readonly stmt;
  count = 0;
  /** ms spent inside SQLite */
  ms = 0;
  constructor(db: Database, table: string) {
    this.stmt = db.prepare(`INSERT INTO ${table} (domain, adlist_id) SELECT value, ? FROM json_each(CAST(? AS TEXT))`);
  }
  add(b: Uint8Array, start: number, end: number, id: number): void {
    if ((id !== this.id && this.len > 0) || this.len + end - start + 4 > this.buf.length) this.flush();
    this.id = id;
    const buf = this.buf;
    // '[' before the first entry, ',' before the others
    buf[this.len] = this.len === 0 ? 91 : 44;
    buf[this.len + 1] = 34;
    this.len += 2;
    for (let i = start; i < end; i++) buf[this.len++] = b[i]!;
    buf[this.len++] = 34;
    this.count++;
  }
  flush(): void {
    if (this.len === 0) return;
    this.buf[this.len++] = 93;
    const t = performance.now();
    this.stmt.run(this.id, this.buf.subarray(0, this.len));
    this.ms += performance.now() - t;
    this.len = 0;
  }
}

/** The two sets of one kind of list (plain names and ABP subtrees), fed in list order. */
class Sets {
  readonly plain: DomainSetBuilder;
  readonly abp: DomainSetBuilder;
  private readonly scratch = new WireScratch();
  constructor(
    private readonly prefix: string,
    memory: BuildMemory,
  ) {
    this.plain = new DomainSetBuilder(new ComboTable(), 1 << 16, memory);
    this.abp = new DomainSetBuilder(new ComboTable(), 16, memory);
  }

  /** true when (entry, list) is new; parseList hands ABP entries verbatim ("||x^" / "@@||x^") */
  add(b: Uint8Array, start: number, end: number, abp: boolean, id: number): boolean {
    const wire = abp
      ? this.scratch.encodeBytes(b, start + this.prefix.length, end - 1)
      : this.scratch.encodeBytes(b, start, end);
    // a name too long for the wire (the DNS never asks for it) is still stored in the table
    return wire === null || (abp ? this.abp : this.plain).add(wire, id);
  }

  /**
   * Room for the lines of all lists of this kind, before the first: each table sized once (grown list by
   * list, the old and the grown table were alive at once, and the plain one was sized for ABP lines too).
   */
  reserve(files: readonly string[]): void {
    let lines = 0,
      abp = 0;
    for (const f of files) {
      const c = countLines(f, this.prefix);
      lines += c.lines;
      abp += c.abp;
    }
    this.plain.reserve(lines - abp);
    this.abp.reserve(abp);
  }
}

function writeSets(path: string, key: string, block: Sets, allow: Sets): { snapshotBytes: number; unique: number } {
  const gravity = block.plain.finish(false),
    gravityAbp = block.abp.finish(false);
  const snapshotBytes = writeSnapshotFile(path, key, {
    gravity,
    gravityAbp,
    antigravity: allow.plain.finish(false),
    antigravityAbp: allow.abp.finish(false),
  });
  return { snapshotBytes, unique: gravity.count + gravityAbp.count };
}

const maxRowid = (db: Database, table: string) =>
  (db.query(`SELECT MAX(rowid) AS m FROM ${table}`).get() as { m: number | null }).m ?? 0;

const latin1 = new TextDecoder("latin1");

/** One AdGuard-syntax line of a block list: applied (its rules' text), or named with why not. */
function takeRule(into: ListRules, line: string): void {
  const p = parseRule(line);
  if (p === null) return;
  if ("unsupported" in p) into.unsupported.push({ rule: line, why: p.unsupported });
  else for (const r of p) into.rules.push(r.text);
}

/** The plain entries (`||name^`, a name) that a `$badfilter` line of these files disables, as the parser emits them. */
function plainBadfilterTargets(files: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const file of files)
    for (const line of badfilterLines(file)) {
      const p = parseRule(line);
      if (p === null || "unsupported" in p) continue;
      for (const r of p) if (r.badfilter) out.add(badfilterTarget(r.text).toLowerCase());
    }
  return out;
}

export async function runGravity(
  db: Database,
  dataDir: string,
  limits: Limits,
  out: (line: string) => void,
  /** asked inside the swap's transaction, last before it commits: false rolls the swap back */
  mayCommit: () => boolean = () => true,
): Promise<GravityResult> {
  const t0 = performance.now();
  db.exec("PRAGMA foreign_keys = OFF");
  const lists = enabledAdlists(db);
  out(`  [i] Gravity update of ${lists.length} list${lists.length === 1 ? "" : "s"}`);
  createBuildTables(db);
  const stats = new Map<number, { status: number; valid: number; invalid: number; abp: number }>();
  const block = new Inserter(db, BUILD.gravity);
  const allow = new Inserter(db, BUILD.antigravity);
  // the sets' records and nodes in a file of the data directory (page cache, not heap: build-memory.ts)
  const memory = new FileMemory(dataDir);
  let blockSets: Sets | null = new Sets("||", memory);
  let allowSets: Sets | null = new Sets("@@||", memory);
  let abpSeen = false;
  const phases: Record<string, number> = { fetch: 0, parse: 0, insert: 0, index: 0, snapshot: 0, swap: 0 };
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phases[name] = (phases[name] ?? 0) + now - mark;
    mark = now;
  };
  // a fresh build table: losing it in a crash loses nothing, so no syncing until the swap
  db.exec("PRAGMA synchronous = OFF");
  const rulesOf = new Map<number, ListRules>();
  try {
    const fetched: Array<{ l: (typeof lists)[number]; f: Awaited<ReturnType<typeof fetchList>> }> = [];
    for (const l of lists) {
      out(`  [i] Target: ${l.address}`);
      mark = performance.now();
      const f = await fetchList(dataDir, l.id, l.address, limits);
      phase("fetch");
      out(
        `  [${f.status === ListStatus.updated || f.status === ListStatus.unchanged ? "✓" : "✗"}] Status: ${f.message}`,
      );
      fetched.push({ l, f });
    }
    // A list deleted while the others downloaded has lost its local copy with it (removeAdlistById): it
    // is left out, as the swap would drop its rows anyway (test/lists/gravity-interrupted-delete.test.ts).
    const present = fetched.filter(({ f }) => !f.file || existsSync(f.file));
    // a $badfilter in any list disables its rule in every list: its plain `||name^` / name targets are left out below
    const filesOf = (allowList: boolean) =>
      present.flatMap(({ l, f }) => (f.file && (l.type === 1) === allowList ? [f.file] : []));
    const badPlain = plainBadfilterTargets(filesOf(false));
    blockSets.reserve(filesOf(false));
    allowSets.reserve(filesOf(true));
    for (const { l, f } of present) {
      if (!f.file) {
        stats.set(l.id, { status: f.status, valid: 0, invalid: 0, abp: 0 });
        continue;
      }
      const ins = l.type === 1 ? allow : block;
      const sets = (l.type === 1 ? allowSets : blockSets)!;
      const before = ins.ms;
      const file = f.file;
      // A file:// address can name any file Moat may read (a password file, a key): its lines are
      // never echoed, and a file that is mostly not domains is not a list, so none of it is imported
      // (it would become searchable through /api/search).
      const local = /^file:/i.test(l.address);
      if (local) {
        const pre = parseFile(file, l.type === 1 ? "allow" : "block", () => {});
        if (pre.invalid > 0 && pre.valid + pre.abp <= pre.invalid) {
          stats.set(l.id, { status: ListStatus.failed, valid: 0, invalid: pre.invalid, abp: 0 });
          out(
            `  [✗] Not a list: ${pre.invalid} of its ${pre.valid + pre.abp + pre.invalid} entries are not domains; nothing imported`,
          );
          continue;
        }
      }
      const listRules: ListRules = { rules: [], unsupported: [] };
      if (l.type !== 1) rulesOf.set(l.id, listRules);
      const counts = db.transaction(() => {
        const c = parseFile(
          file,
          l.type === 1 ? "allow" : "block",
          (b, s, e, abp) => {
            if (badPlain.size > 0 && badPlain.has(latin1.decode(b.subarray(s, e)))) return;
            if (sets.add(b, s, e, abp, l.id)) ins.add(b, s, e, l.id);
          },
          l.type === 1 ? null : (line) => takeRule(listRules, line),
        );
        ins.flush();
        return c;
      })();
      // the parse's garbage collected before the next list
      Bun.gc(true);
      phase("parse");
      // SQLite time was inside the parse loop
      phases.parse! -= ins.ms - before;
      phases.insert! += ins.ms - before;
      if (counts.abp > 0) abpSeen = true;
      stats.set(l.id, { status: f.status, valid: counts.valid, invalid: counts.invalid, abp: counts.abp });
      out(
        `  [i] Imported ${counts.valid} domains${counts.abp ? ` and ${counts.abp} ABP entries` : ""}, ignoring ${counts.invalid} non-domain entries`,
      );
      if (listRules.rules.length + listRules.unsupported.length > 0)
        out(
          `  [i] AdGuard rules: ${listRules.rules.length} applied, ${listRules.unsupported.length} not supported${listRules.unsupported.length ? ` (first: ${listRules.unsupported[0]!.rule}: ${listRules.unsupported[0]!.why})` : ""}`,
        );
      if (counts.samples.length && !local) out(`      Sample of non-domain entries: ${counts.samples.join(", ")}`);
    }
    mark = performance.now();
    const now = Math.floor(Date.now() / 1000);
    const token = randomUUID();
    const key = snapshotKey(
      String(now),
      token,
      [block.count, maxRowid(db, BUILD.gravity)],
      [allow.count, maxRowid(db, BUILD.antigravity)],
    );
    // the sets only live to be written: the index below is built without them in memory
    const { snapshotBytes, unique } = writeSets(join(dataDir, "gravity.snapshot"), key, blockSets, allowSets);
    blockSets = allowSets = null;
    Bun.gc(true);
    // their mappings went with the collection: the file's blocks are free for the index below
    memory.close();
    phase("snapshot");
    out("  [i] Building the index");
    const suffix = Date.now().toString(36);
    db.exec(`CREATE INDEX idx_gravity_${suffix} ON ${BUILD.gravity} (domain, adlist_id)`);
    db.exec(`CREATE INDEX idx_antigravity_${suffix} ON ${BUILD.antigravity} (domain, adlist_id)`);
    phase("index");
    db.exec("PRAGMA synchronous = NORMAL");
    db.transaction(() => {
      // legacy rename: the views name "gravity" and must not be re-checked while it is absent
      db.exec("PRAGMA legacy_alter_table = ON");
      dropRowsOfRemovedLists(db, lists);
      db.exec("DROP TABLE gravity");
      db.exec(`ALTER TABLE ${BUILD.gravity} RENAME TO gravity`);
      db.exec("DROP TABLE antigravity");
      db.exec(`ALTER TABLE ${BUILD.antigravity} RENAME TO antigravity`);
      const results = new Map<number, AdlistResult>();
      for (const [id, s] of stats)
        results.set(id, {
          number: s.valid,
          invalid_domains: s.invalid,
          abp_entries: s.abp,
          status: s.status,
          updated: s.status === ListStatus.updated,
        });
      recordAdlistResults(db, results, now);
      writeListRules(db, rulesOf);
      const setInfo = db.query(
        "INSERT INTO info (property, value) VALUES (?, ?) ON CONFLICT(property) DO UPDATE SET value = excluded.value",
      );
      setInfo.run("updated", String(now));
      setInfo.run("gravity_count", String(unique));
      setInfo.run("abp_domains", abpSeen ? "1" : "0");
      // the snapshot file written above belongs to exactly this table content
      setInfo.run("moat_snapshot", token);
      // a run whose server died must not change what the next server reads (cli.ts)
      if (!mayCommit()) throw new Error("the server that started this update is gone");
    })();
    db.exec("PRAGMA legacy_alter_table = OFF");
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // readers may hold the WAL; it is checkpointed later
    }
    phase("swap");
    const result: GravityResult = {
      ok: true,
      lists: lists.length,
      gravityRows: block.count,
      unique,
      antigravityRows: allow.count,
      ms: Math.round(performance.now() - t0),
      phases,
      snapshotBytes,
    };
    out(`  [i] Number of gravity domains: ${block.count} (${unique} unique domains)`);
    out(`  [i] Number of allowed domains from allow lists: ${allow.count}`);
    out(
      `  [i] Phases (ms): ${Object.entries(phases)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(", ")}; snapshot file ${(snapshotBytes / 1048576).toFixed(1)} MiB`,
    );
    out(`  [✓] Done in ${(result.ms / 1000).toFixed(1)} s.`);
    return result;
  } catch (e) {
    dropBuildTables(db);
    throw e;
  } finally {
    memory.close();
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
  }
}

// Compiles gravity.db into the data of one filter snapshot, with Pi-hole's rules: which entries
// apply to which groups, as bitsets. Runs in a worker (build-worker.ts) so the DNS thread never waits
// on SQLite; the result is typed arrays handed over without copying.
import { Database } from "bun:sqlite";
import { emptyShape, resolveCombos, transferables, type DomainSetData, type DomainSetShape } from "./domainset.ts";
import { ComboTable, DomainSetBuilder } from "./domainset-build.ts";
import { readSnapshotFile, snapshotFileOf, writeSnapshotFile } from "./snapshot-file.ts";
import { gravitySetsFromDb, readGravityKey } from "./gravity/tables.ts";
import { clientEntries, enabledAdlistIds, enabledDomains, enabledGroupIds, groupLinks } from "../lists/filter-input.ts";
import type { LinkTable } from "../lists/group-links.ts";
import { nameToWire } from "../net/dns-name.ts";

export interface RegexEntry {
  id: number;
  pattern: string;
  mask: number[];
}

export interface ClientEntry {
  id: number;
  ip: string;
  mask: number[];
}

export interface SnapshotData {
  words: number;
  /** bit index per enabled group id */
  groupBits: Array<[number, number]>;
  allowExact: DomainSetData;
  denyExact: DomainSetData;
  gravity: DomainSetData;
  antigravity: DomainSetData;
  /** ABP `||x^` subtree entries */
  gravityAbp: DomainSetData;
  antigravityAbp: DomainSetData;
  allowRegex: RegexEntry[];
  denyRegex: RegexEntry[];
  clients: ClientEntry[];
  buildMs: number;
}

type Masks = Map<number, Uint32Array>;

export interface BuildInfo {
  /** where the gravity sets came from */
  source: "file" | "database";
  /** ms spent getting the gravity sets (file load, or SQLite read + build) */
  gravityMs: number;
}

/** The part of a snapshot built from the domainlist alone: small, so rebuilt on its own when only it changed. */
export type DomainsData = Pick<SnapshotData, "allowExact" | "denyExact" | "allowRegex" | "denyRegex" | "buildMs">;

/** The domain part of a snapshot's data (what a DNS thread is sent when only it changed). */
export function domainsOf(s: SnapshotData): DomainsData {
  return {
    allowExact: s.allowExact,
    denyExact: s.denyExact,
    allowRegex: s.allowRegex,
    denyRegex: s.denyRegex,
    buildMs: s.buildMs,
  };
}

/** Bit index per enabled group id, in the order of the ids (the same groups give the same bits). */
function groupBitsOf(db: Database): Array<[number, number]> {
  return enabledGroupIds(db).map((id, i) => [id, i]);
}

const wordsOf = (groupBits: Array<[number, number]>) => Math.max(1, Math.ceil(groupBits.length / 32));

function linkMasks(db: Database, table: LinkTable, groupBits: Array<[number, number]>): Masks {
  const words = wordsOf(groupBits);
  const bitOf = new Map(groupBits);
  const out: Masks = new Map();
  for (const r of groupLinks(db, table)) {
    const bit = bitOf.get(r.g);
    if (bit === undefined) continue;
    let m = out.get(r.k);
    if (!m) out.set(r.k, (m = new Uint32Array(words)));
    m[bit >>> 5]! |= 1 << (bit & 31);
  }
  return out;
}

/** Exact and regex allow/deny entries with their group masks, for the enabled groups `groupBits`. */
function buildDomainsData(db: Database, groupBits: Array<[number, number]>): DomainsData {
  const started = performance.now();
  const words = wordsOf(groupBits);
  const domainMasks = linkMasks(db, "domainlist_by_group", groupBits);
  const exact = (type: number): DomainSetData => {
    const rows = enabledDomains(db, type);
    const b = new DomainSetBuilder(new ComboTable(), rows.length);
    for (const r of rows) {
      const w = domainMasks.has(r.id) && nameToWire(r.domain);
      if (w) b.add(w, r.id);
    }
    return resolveCombos(b.finish(), words, (id) => domainMasks.get(id));
  };
  const regex = (type: number): RegexEntry[] =>
    enabledDomains(db, type)
      .filter((r) => domainMasks.has(r.id))
      .map((r) => ({ id: r.id, pattern: r.domain, mask: [...domainMasks.get(r.id)!] }));
  return {
    allowExact: exact(0),
    denyExact: exact(1),
    allowRegex: regex(2),
    denyRegex: regex(3),
    buildMs: performance.now() - started,
  };
}

/** Opens gravity.db read-only for one build. */
function openForBuild(dbPath: string): Database {
  const db = new Database(dbPath, { readonly: true });
  // One pass over the rows needs no page cache; SQLite's default 2 MiB would stay resident after the
  // build (freed memory of an ended thread is kept by the allocator): ~1 MiB less at 1M names, measured.
  db.exec("PRAGMA cache_size = -64");
  db.run("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * The domainlist part alone, read in one transaction, or null when the enabled groups are no longer
 * `groupBits` (a group changed too: the whole snapshot must be rebuilt). Small enough for the thread
 * that owns the FilterEngine (a few ms for thousands of entries).
 */
export function buildDomainsOnly(dbPath: string, groupBits: Array<[number, number]>): DomainsData | null {
  const db = openForBuild(dbPath);
  try {
    db.run("BEGIN");
    const now = groupBitsOf(db);
    const same =
      now.length === groupBits.length &&
      now.every(([id, bit], i) => groupBits[i]![0] === id && groupBits[i]![1] === bit);
    const out = same ? buildDomainsData(db, groupBits) : null;
    db.run("COMMIT");
    return out;
  } finally {
    db.close();
  }
}

export function buildSnapshotData(dbPath: string, info?: BuildInfo): SnapshotData {
  const started = performance.now();
  const db = openForBuild(dbPath);
  try {
    const groupBits = groupBitsOf(db);
    const words = wordsOf(groupBits);
    const adlistMasks = linkMasks(db, "adlist_by_group", groupBits);
    const clientMasks = linkMasks(db, "client_by_group", groupBits);
    const domains = buildDomainsData(db, groupBits);

    // the gravity sets: from the snapshot file written with this gravity.db, else from its rows
    const t0 = performance.now();
    // one read transaction: the key and the rows it describes are the same version of the tables
    db.run("BEGIN");
    const key = readGravityKey(db);
    const file = snapshotFileOf(dbPath);
    let sets = readSnapshotFile(file, key);
    const source = sets ? "file" : "database";
    if (!sets) sets = gravitySetsFromDb(db);
    db.run("COMMIT");
    if (source === "database") {
      try {
        writeSnapshotFile(file, key, sets);
      } catch {
        // a read-only data directory: the next start builds from the database again
      }
    }
    if (info) Object.assign(info, { source, gravityMs: performance.now() - t0 });
    const enabled = enabledAdlistIds(db);
    const listMask = (id: number) => (enabled.has(id) ? adlistMasks.get(id) : undefined);
    const resolve = (s: DomainSetShape) => resolveCombos(s, words, listMask);

    const clients = clientEntries(db).map((c) => ({
      id: c.id,
      ip: c.ip,
      mask: [...(clientMasks.get(c.id) ?? new Uint32Array(words))],
    }));
    return {
      ...domains,
      words,
      groupBits,
      gravity: resolve(sets.gravity),
      antigravity: resolve(sets.antigravity),
      gravityAbp: resolve(sets.gravityAbp),
      antigravityAbp: resolve(sets.antigravityAbp),
      clients,
      buildMs: performance.now() - started,
    };
  } finally {
    db.close();
  }
}

export function emptySetData(words = 1): DomainSetData {
  return resolveCombos(emptyShape(), words, () => undefined);
}

/** Every buffer once (the sets loaded from a file share one). */
export function snapshotTransferables(s: SnapshotData): ArrayBuffer[] {
  return buffersOf([s.allowExact, s.denyExact, s.gravity, s.antigravity, s.gravityAbp, s.antigravityAbp]);
}

export function domainsTransferables(d: DomainsData): ArrayBuffer[] {
  return buffersOf([d.allowExact, d.denyExact]);
}

function buffersOf(sets: DomainSetData[]): ArrayBuffer[] {
  return [
    ...new Set(
      sets.flatMap((d) => [...transferables(d), d.comboMasks.buffer as ArrayBuffer, d.comboIds.buffer as ArrayBuffer]),
    ),
  ];
}

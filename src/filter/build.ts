// Compiles gravity.db into the data of one filter snapshot, with Pi-hole's rules: which entries
// apply to which groups, as bitsets. Runs in a worker (build-worker.ts) so the DNS thread never waits
// on SQLite; the result is typed arrays handed over without copying.
import { Database } from "bun:sqlite";
import { emptyShape, resolveCombos, transferables, type DomainSetData, type DomainSetShape } from "./domainset.ts";
import { ComboTable, DomainSetBuilder } from "./domainset-build.ts";
import { gravitySetsOf } from "./gravity/tables.ts";
import type { SnapshotFileRef } from "./snapshot-file.ts";
import { clientEntries, enabledAdlistIds, enabledDomains, enabledGroupIds, groupLinks } from "../lists/filter-input.ts";
import type { GroupPolicy } from "./policy.ts";
import type { ClientEntry } from "./clients.ts";
import type { LinkTable } from "../lists/tables.ts";
import { nameToWire } from "../net/dns-name.ts";

export interface RegexEntry {
  id: number;
  pattern: string;
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
  /** each group policy's compiled data, by its name (src/policies/, src/filter/policy.ts) */
  policies: Record<string, object>;
  buildMs: number;
  /**
   * the snapshot file the four gravity sets are views of, held open so the other DNS threads map it
   * too instead of taking a copy (src/dns/threads/); closed by the FilterEngine once replaced
   */
  gravityFile?: SnapshotFileRef;
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

/** The masks with `words` words each (a schedule's list bits may need more than the groups'). */
function widened(masks: Masks, words: number): Masks {
  for (const [k, m] of masks)
    if (m.length < words) {
      const w = new Uint32Array(words);
      w.set(m);
      masks.set(k, w);
    }
  return masks;
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

/** The whole snapshot's data, with the part of each of `policies`. */
export function buildSnapshotData(dbPath: string, policies: readonly GroupPolicy[], info?: BuildInfo): SnapshotData {
  const started = performance.now();
  const db = openForBuild(dbPath);
  try {
    const groupBits = groupBitsOf(db);
    const bitOf = new Map(groupBits);
    // block lists a policy applies to a group only at times get a bit of their own past the groups' for it,
    // in the lists' masks only (the domain entries, rebuilt alone, keep the groups' words)
    let nextBit = groupBits.length;
    const listBits = new Map<number, number[]>();
    const ownBits = policies.map((p) => {
      const own = new Map<number, number>();
      for (const [g, lists] of p.listBits?.(db, bitOf) ?? []) {
        if (!bitOf.has(g) || lists.length === 0) continue;
        own.set(g, nextBit);
        listBits.set(nextBit++, lists);
      }
      return own;
    });
    const words = Math.max(wordsOf(groupBits), Math.ceil(nextBit / 32));
    const adlistMasks = widened(linkMasks(db, "adlist_by_group", groupBits), words);
    for (const [bit, lists] of listBits)
      for (const id of lists) {
        let m = adlistMasks.get(id);
        if (!m) adlistMasks.set(id, (m = new Uint32Array(words)));
        m[bit >>> 5]! |= 1 << (bit & 31);
      }
    const clientMasks = widened(linkMasks(db, "client_by_group", groupBits), words);
    const domains = buildDomainsData(db, groupBits);

    // the gravity sets: from the snapshot file written with this gravity.db, else from its rows
    const t0 = performance.now();
    const { sets, source, file } = gravitySetsOf(db, dbPath, true);
    if (info) Object.assign(info, { source, gravityMs: performance.now() - t0 });
    const enabled = enabledAdlistIds(db);
    const listMask = (id: number) => (enabled.has(id) ? adlistMasks.get(id) : undefined);
    const resolve = (s: DomainSetShape) => resolveCombos(s, words, listMask);

    const clients = clientEntries(db).map((c) => ({
      id: c.id,
      ip: c.ip,
      mask: [...(clientMasks.get(c.id) ?? new Uint32Array(words))],
    }));
    const compiled: Record<string, object> = {};
    policies.forEach((p, i) => {
      compiled[p.name] = p.compile({ db, bitOf, groups: groupBits.length, words, listBits: ownBits[i]! });
    });
    return {
      ...domains,
      words,
      groupBits,
      gravity: resolve(sets.gravity),
      antigravity: resolve(sets.antigravity),
      gravityAbp: resolve(sets.gravityAbp),
      antigravityAbp: resolve(sets.antigravityAbp),
      clients,
      policies: compiled,
      buildMs: performance.now() - started,
      ...(file ? { gravityFile: file } : {}),
    };
  } finally {
    db.close();
  }
}

export function emptySetData(words = 1): DomainSetData {
  return resolveCombos(emptyShape(), words, () => undefined);
}

/** Every buffer once (the sets loaded from a file share one), the policies' included. */
export function snapshotTransferables(s: SnapshotData, policies: readonly GroupPolicy[]): ArrayBuffer[] {
  const own = policies.flatMap((p) => (s.policies[p.name] ? p.buffers(s.policies[p.name]!) : []));
  return [
    ...new Set([
      ...setBuffers([s.allowExact, s.denyExact, s.gravity, s.antigravity, s.gravityAbp, s.antigravityAbp]),
      ...own,
    ]),
  ];
}

export function domainsTransferables(d: DomainsData): ArrayBuffer[] {
  return setBuffers([d.allowExact, d.denyExact]);
}

/** The buffers of domain sets' data, each once: what a policy's `buffers()` returns for its sets. */
export function setBuffers(sets: DomainSetData[]): ArrayBuffer[] {
  return [
    ...new Set(
      sets.flatMap((d) => [...transferables(d), d.comboMasks.buffer as ArrayBuffer, d.comboIds.buffer as ArrayBuffer]),
    ),
  ];
}

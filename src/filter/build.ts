// Compiles gravity.db into the data of one filter snapshot (reference §6.4, §7.3): which entries
// apply to which groups, as bitsets. Runs in a worker (build-worker.ts) so the DNS thread never waits
// on SQLite; the result is typed arrays handed over without copying.
import { Database } from "bun:sqlite";
import { DomainSetBuilder, transferables, type DomainSetData } from "./domainset.ts";
import { nameToWire } from "../dns/wire.ts";

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

export function buildSnapshotData(dbPath: string): SnapshotData {
  const started = performance.now();
  const db = new Database(dbPath, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const groups = db.query<{ id: number }, []>('SELECT id FROM "group" WHERE enabled = 1 ORDER BY id').all();
    const words = Math.max(1, Math.ceil(groups.length / 32));
    const bitOf = new Map(groups.map((g, i) => [g.id, i]));
    const linkMasks = (table: string, col: string): Masks => {
      const out: Masks = new Map();
      for (const r of db.query<{ k: number; g: number }, []>(`SELECT ${col} AS k, group_id AS g FROM ${table}`).all()) {
        const bit = bitOf.get(r.g);
        if (bit === undefined) continue;
        let m = out.get(r.k);
        if (!m) out.set(r.k, (m = new Uint32Array(words)));
        m[bit >>> 5]! |= 1 << (bit & 31);
      }
      return out;
    };
    const domainMasks = linkMasks("domainlist_by_group", "domainlist_id");
    const adlistMasks = linkMasks("adlist_by_group", "adlist_id");
    const clientMasks = linkMasks("client_by_group", "client_id");

    const exact = (type: number) => {
      const rows = db.query<{ id: number; domain: string }, [number]>("SELECT id, domain FROM domainlist WHERE type = ? AND enabled = 1").all(type);
      const b = new DomainSetBuilder(words, rows.length);
      for (const r of rows) {
        const m = domainMasks.get(r.id);
        const w = m && nameToWire(r.domain);
        if (m && w) b.add(w, r.id, m);
      }
      return b.finish();
    };
    const regex = (type: number): RegexEntry[] =>
      db
        .query<{ id: number; domain: string }, [number]>("SELECT id, domain FROM domainlist WHERE type = ? AND enabled = 1 ORDER BY id")
        .all(type)
        .filter((r) => domainMasks.has(r.id))
        .map((r) => ({ id: r.id, pattern: r.domain, mask: [...domainMasks.get(r.id)!] }));

    const lists = (table: "gravity" | "antigravity", marker: string) => {
      const enabled = new Set(db.query<{ id: number }, []>("SELECT id FROM adlist WHERE enabled = 1").all().map((r) => r.id));
      const n = db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0;
      const plain = new DomainSetBuilder(words, n);
      const abp = new DomainSetBuilder(words, 16);
      for (const r of db.query<{ domain: string; adlist_id: number }, []>(`SELECT domain, adlist_id FROM ${table}`).iterate()) {
        if (!enabled.has(r.adlist_id)) continue;
        const m = adlistMasks.get(r.adlist_id);
        if (!m) continue;
        let d = r.domain;
        let into = plain;
        if (d.startsWith(marker) && d.endsWith("^")) {
          d = d.slice(marker.length, -1);
          into = abp;
        }
        const w = nameToWire(d);
        if (w) into.add(w, r.adlist_id, m);
      }
      return [plain.finish(), abp.finish()] as const;
    };
    const [gravity, gravityAbp] = lists("gravity", "||");
    const [antigravity, antigravityAbp] = lists("antigravity", "@@||");
    const clients = db
      .query<{ id: number; ip: string }, []>("SELECT id, ip FROM client ORDER BY id")
      .all()
      .map((c) => ({ id: c.id, ip: c.ip, mask: [...(clientMasks.get(c.id) ?? new Uint32Array(words))] }));
    return {
      words,
      groupBits: [...bitOf.entries()],
      allowExact: exact(0),
      denyExact: exact(1),
      gravity,
      antigravity,
      gravityAbp,
      antigravityAbp,
      allowRegex: regex(2),
      denyRegex: regex(3),
      clients,
      buildMs: performance.now() - started,
    };
  } finally {
    db.close();
  }
}

export function snapshotTransferables(s: SnapshotData): ArrayBuffer[] {
  return [s.allowExact, s.denyExact, s.gravity, s.antigravity, s.gravityAbp, s.antigravityAbp].flatMap(transferables);
}

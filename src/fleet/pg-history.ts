// One query history for the fleet in PostgreSQL (fleet.postgres). Every node hands its query
// records here beside its own databases: `record()` only appends to an in-memory batch (the DNS
// hot path never waits), and once a second the batch goes out as one multi-row INSERT (the rows
// as one json parameter, expanded by json_array_elements: one statement per 20,000 rows). While
// PostgreSQL is away the batch waits and is retried, up to MAX_BUFFERED records; beyond that new
// records are counted as dropped (the node's own databases still have them). Reads for /api/queries and /api/history (node= or the
// whole fleet) are plain SQL over the one table `moat_queries`.
import { SQL } from "bun";
import type { ConfigStore } from "../config/index.ts";
import type { QueryRecord, QuerySink } from "../query/record.ts";
import {
  BLOCKED_STATUSES,
  DNSSEC_STATUS,
  QUERY_STATUS,
  REPLY_TYPE,
  Status,
  queryTypeName,
  QUERY_TYPES,
} from "../query/enums.ts";
import { EDE_TEXT, type QueryFilter, type QueryPage } from "../querylog/read.ts";
import { HIDDEN_CLIENT, HIDDEN_DOMAIN } from "../stats/sink.ts";

const MAX_BUFFERED = 200_000;
const BATCH = 20_000;
const FLUSH_MS = 1000;
/** the advisory lock every node takes while it makes the schema ("moat" in ASCII) */
const SCHEMA_LOCK = 0x6d6f6174;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS moat_queries (
    id bigserial PRIMARY KEY, node text NOT NULL, time double precision NOT NULL, type smallint NOT NULL,
    domain text NOT NULL, client text NOT NULL, status smallint NOT NULL, reply smallint NOT NULL,
    reply_time real NOT NULL, upstream text, dnssec smallint NOT NULL, list_id integer, ede smallint NOT NULL, cname text)`,
  // the answer records (src/dns/answer-text.ts), added to the tables of earlier Moats too
  "ALTER TABLE moat_queries ADD COLUMN IF NOT EXISTS answers text",
  "CREATE INDEX IF NOT EXISTS moat_queries_time ON moat_queries (time)",
  "CREATE INDEX IF NOT EXISTS moat_queries_node_time ON moat_queries (node, time)",
];

const INSERT = `INSERT INTO moat_queries (node, time, type, domain, client, status, reply, reply_time, upstream, dnssec, list_id, ede, cname, answers)
  SELECT $1, (e->>0)::float8, (e->>1)::int2, e->>2, e->>3, (e->>4)::int2, (e->>5)::int2, (e->>6)::float4, e->>7, (e->>8)::int2,
    (e->>9)::int4, (e->>10)::int2, e->>11, e->>12 FROM json_array_elements($2::json) AS e`;

/** A row of moat_queries as the driver returns it (bigserial ids come as strings). */
interface HistoryRow {
  id: string;
  time: number;
  type: number;
  domain: string;
  client: string;
  status: number;
  reply: number;
  reply_time: number;
  upstream: string | null;
  dnssec: number;
  list_id: number | null;
  ede: number;
  cname: string | null;
  answers: string | null;
}

type Row = [
  number,
  number,
  string,
  string,
  number,
  number,
  number,
  string | null,
  number,
  number | null,
  number,
  string | null,
  string | null,
];

/** The local query log's filters that the fleet-wide log answers too, and which node to ask. */
export type FleetQueryFilter = Pick<
  QueryFilter,
  "from" | "until" | "length" | "start" | "cursor" | "domain" | "client_ip" | "upstream" | "type" | "status"
> & {
  node?: string;
};

const BLOCKED = [...BLOCKED_STATUSES].join(",");
const CACHED = [Status.CACHE, Status.CACHE_STALE].join(",");
const like = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "%");

export class FleetHistory implements QuerySink {
  private buffer: Row[] = [];
  private flushing = false;
  /** the table and its indexes, made once (null: not yet, or the last try failed) */
  private schema: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval>;
  private readonly sql: SQL;
  /** records sent, records dropped because the buffer was full, the last error */
  readonly counters = { sent: 0, dropped: 0, batches: 0 };
  error: string | null = null;

  constructor(
    url: string,
    readonly node: string,
    private readonly config: ConfigStore,
    private readonly log: (level: "info" | "warn" | "error", m: string) => void,
  ) {
    this.sql = new SQL({ url, max: 3, connectionTimeout: 3, idleTimeout: 60 });
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
  }

  get buffered(): number {
    return this.buffer.length;
  }

  /** Hot path: appends, never waits, never throws. */
  record(r: QueryRecord): void {
    const level = this.config.current.misc.privacylevel;
    if (level >= 3) return;
    if (this.buffer.length >= MAX_BUFFERED) {
      this.counters.dropped++;
      return;
    }
    const domain = level >= 1 ? HIDDEN_DOMAIN : r.domain;
    const cname = r.cname === null ? null : level >= 1 ? HIDDEN_DOMAIN : r.cname;
    this.buffer.push([
      r.time,
      r.type,
      domain,
      level >= 2 ? HIDDEN_CLIENT : r.client,
      r.status,
      r.reply,
      r.replyTime,
      r.upstream,
      r.dnssec,
      r.listId,
      r.ede,
      cname,
      // the answer records name the CNAME chain and the addresses: hidden with the domain
      level >= 1 ? null : r.answers,
    ]);
  }

  /**
   * Makes the table and its indexes once. Every node of a fleet may start at once, and a read may come
   * while the first flush makes them, but PostgreSQL's CREATE … IF NOT EXISTS is not safe against a
   * concurrent one (both sessions find the name free, and one fails on a catalog's unique index: the
   * first /api/queries of test/fleet/history.test.ts got 503 so). So the statements run in one
   * transaction under an advisory lock, and this process's callers share one attempt; a failed one is
   * tried again by the next caller.
   */
  private ensureSchema(): Promise<void> {
    this.schema ??= this.sql
      .begin(async (tx) => {
        await tx.unsafe(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
        for (const s of SCHEMA) await tx.unsafe(s);
      })
      .then(
        () => undefined,
        (e: unknown) => {
          this.schema = null;
          throw e;
        },
      );
    return this.schema;
  }

  /** Sends what is buffered; resolves when sent or failed (kept for the next try). */
  async flush(): Promise<void> {
    if (this.flushing || this.buffer.length === 0) return;
    this.flushing = true;
    try {
      await this.ensureSchema();
      while (this.buffer.length) {
        const batch = this.buffer.slice(0, BATCH);
        // the rows as one json parameter (Bun encodes it natively): binding a dozen column arrays
        // instead cost the main thread, which answers DNS, about twice what the queries did
        await this.sql.unsafe(INSERT, [this.node, batch]);
        // only now do the records leave the buffer: a failed INSERT keeps them for the next try
        this.buffer.splice(0, batch.length);
        this.counters.sent += batch.length;
        this.counters.batches++;
      }
      if (this.error) this.log("info", "fleet: PostgreSQL is back, query history flowing again");
      this.error = null;
    } catch (e) {
      if (!this.error)
        this.log(
          "warn",
          `fleet: PostgreSQL unavailable, ${this.buffer.length} query records wait: ${(e as Error).message}`,
        );
      this.error = (e as Error).message;
    } finally {
      this.flushing = false;
    }
  }

  private where(f: FleetQueryFilter): { sql: string; args: unknown[] } {
    const w: string[] = [];
    const args: unknown[] = [];
    const add = (clause: string, v: unknown) => {
      args.push(v);
      w.push(clause.replace("?", `$${args.length}`));
    };
    if (f.node) add("node = ?", f.node);
    if (f.from !== undefined) add("time >= ?", f.from);
    if (f.until !== undefined) add("time <= ?", f.until);
    if (f.domain) add("domain LIKE ?", like(f.domain));
    if (f.client_ip) add("client LIKE ?", like(f.client_ip));
    if (f.upstream) {
      if (f.upstream === "cache") w.push(`status IN (${CACHED})`);
      else if (f.upstream === "blocklist") w.push(`status IN (${BLOCKED})`);
      else if (f.upstream === "permitted") w.push(`status NOT IN (${BLOCKED})`);
      else add("upstream LIKE ?", like(f.upstream));
    }
    if (f.type) {
      const i = QUERY_TYPES.indexOf(f.type.toUpperCase() as (typeof QUERY_TYPES)[number]);
      if (i < 0) throw new RangeError(`unknown query type ${f.type}`);
      add("type = ?", i + 1);
    }
    if (f.status) {
      const i = QUERY_STATUS.indexOf(f.status.toUpperCase() as (typeof QUERY_STATUS)[number]);
      if (i < 0) throw new RangeError(`unknown query status ${f.status}`);
      add("status = ?", i);
    }
    return { sql: w.length ? `WHERE ${w.join(" AND ")}` : "", args };
  }

  /** The fleet's query log, newest first, paged by cursor (highest id shown) and offset. */
  async queries(f: FleetQueryFilter): Promise<QueryPage & { earliest: number }> {
    await this.flush();
    await this.ensureSchema();
    const { sql, args } = this.where(f);
    const top = Number(
      ((await this.sql.unsafe("SELECT COALESCE(MAX(id), 0) AS m FROM moat_queries")) as Array<{ m: string }>)[0]!.m,
    );
    const cursor = f.cursor ?? top;
    const length = f.length === undefined ? 100 : Math.min(Math.max(f.length, 1), 100_000);
    const pageArgs = [...args, cursor, length, f.start ?? 0];
    const n = args.length;
    const rows = (await this.sql.unsafe(
      `SELECT * FROM moat_queries ${sql ? `${sql} AND` : "WHERE"} id <= $${n + 1} ORDER BY id DESC LIMIT $${n + 2} OFFSET $${n + 3}`,
      pageArgs,
    )) as HistoryRow[];
    const total = Number(
      (
        (await this.sql.unsafe("SELECT COUNT(*) AS n, COALESCE(MIN(time), 0) AS e FROM moat_queries")) as Array<{
          n: string;
          e: number;
        }>
      )[0]!.n,
    );
    const filtered = sql
      ? Number(
          ((await this.sql.unsafe(`SELECT COUNT(*) AS n FROM moat_queries ${sql}`, args)) as Array<{ n: string }>)[0]!
            .n,
        )
      : total;
    const earliest = Number(
      ((await this.sql.unsafe("SELECT COALESCE(MIN(time), 0) AS e FROM moat_queries")) as Array<{ e: number }>)[0]!.e,
    );
    return {
      queries: rows.map((x) => ({
        id: Number(x.id),
        time: x.time,
        type: queryTypeName(x.type),
        domain: x.domain,
        cname: x.cname ?? null,
        status: QUERY_STATUS[x.status] ?? "UNKNOWN",
        client: { ip: x.client, name: null },
        dnssec: DNSSEC_STATUS[x.dnssec ?? 0] ?? "UNKNOWN",
        reply: { type: REPLY_TYPE[x.reply ?? 0] ?? "UNKNOWN", time: x.reply_time ?? 0 },
        list_id: x.list_id ?? null,
        upstream: x.upstream ?? null,
        ede: { code: x.ede ?? -1, text: EDE_TEXT[x.ede ?? -1] ?? null },
        answers: x.answers ?? null,
      })),
      cursor,
      recordsTotal: total,
      recordsFiltered: filtered,
      earliest,
    };
  }

  /** Totals between `from` and `until`, as /api/stats/database/summary reports them. */
  async summary(
    from: number,
    until: number,
    node?: string,
  ): Promise<{ sum_queries: number; sum_blocked: number; percent_blocked: number; total_clients: number }> {
    await this.flush();
    await this.ensureSchema();
    const args: unknown[] = [from, until];
    if (node) args.push(node);
    const r = (
      (await this.sql.unsafe(
        `SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE status IN (${BLOCKED})) AS blocked, COUNT(DISTINCT client) AS clients
       FROM moat_queries WHERE time >= $1 AND time <= $2 ${node ? "AND node = $3" : ""}`,
        args,
      )) as Array<Record<string, string>>
    )[0]!;
    const total = Number(r.total);
    const blocked = Number(r.blocked);
    return {
      sum_queries: total,
      sum_blocked: blocked,
      percent_blocked: total ? (100 * blocked) / total : 0,
      total_clients: Number(r.clients),
    };
  }

  /** Queries per 10-minute slot between `from` and `until` (slot starts), for the fleet or one node. */
  async history(
    from: number,
    until: number,
    node?: string,
  ): Promise<Array<{ timestamp: number; total: number; cached: number; blocked: number; forwarded: number }>> {
    await this.flush();
    await this.ensureSchema();
    const args: unknown[] = [Math.floor(from / 600) * 600, until + 600];
    if (node) args.push(node);
    const rows = (await this.sql.unsafe(
      `SELECT (floor(time / 600) * 600)::bigint AS slot, COUNT(*) AS total,
         COUNT(*) FILTER (WHERE status IN (${CACHED})) AS cached,
         COUNT(*) FILTER (WHERE status IN (${BLOCKED})) AS blocked,
         COUNT(*) FILTER (WHERE status IN (${Status.FORWARDED}, ${Status.RETRIED}, ${Status.RETRIED_DNSSEC})) AS forwarded
       FROM moat_queries WHERE time >= $1 AND time < $2 ${node ? "AND node = $3" : ""} GROUP BY 1`,
      args,
    )) as Array<Record<string, string>>;
    const bySlot = new Map(rows.map((r) => [Number(r.slot), r]));
    const out = [];
    for (let ts = Math.floor(from / 600) * 600; ts <= until && out.length < 100_000; ts += 600) {
      const r = bySlot.get(ts);
      out.push({
        timestamp: ts,
        total: Number(r?.total ?? 0),
        cached: Number(r?.cached ?? 0),
        blocked: Number(r?.blocked ?? 0),
        forwarded: Number(r?.forwarded ?? 0),
      });
    }
    return out;
  }

  /** Rows per node (GET /api/fleet). */
  async perNode(): Promise<Record<string, number>> {
    await this.ensureSchema();
    const rows = (await this.sql.unsafe("SELECT node, COUNT(*) AS n FROM moat_queries GROUP BY node")) as Array<{
      node: string;
      n: string;
    }>;
    return Object.fromEntries(rows.map((r) => [r.node, Number(r.n)]));
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.race([this.flush(), Bun.sleep(2000)]);
    await this.sql.close({ timeout: 1 }).catch(() => undefined);
  }
}

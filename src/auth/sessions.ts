// The session table: a fixed number of slots (`webserver.api.max_sessions`, the slot index is the
// session id), each holding one SID/CSRF pair with a sliding expiry. Sessions are written through to
// the `session` table of pihole-FTL.db so that a restart keeps them (`webserver.session.restore`).
import type { Database } from "bun:sqlite";
import { writeWithoutWaiting } from "../db/no-wait.ts";
import { clientKey } from "./client-key.ts";
import { randomBytes } from "./password.ts";

export interface Session {
  id: number;
  sid: string;
  csrf: string;
  /** unix seconds */
  loginAt: number;
  /** unix seconds (fractional) */
  validUntil: number;
  remoteAddr: string;
  userAgent: string | null;
  xForwardedFor: string | null;
  tlsLogin: boolean;
  tlsMixed: boolean;
  app: boolean;
  cli: boolean;
}

export type NewSession = Pick<Session, "remoteAddr" | "userAgent" | "xForwardedFor" | "tlsLogin" | "app" | "cli">;

/** The session whose last request is oldest (its expiry slides with each request). */
const leastRecentlyUsed = (list: Session[]): Session => list.reduce((a, b) => (b.validUntil < a.validUntil ? b : a));

/** 16 random bytes in base64 without the final padding character, as Pi-hole prints them (23 chars). */
function newToken(): string {
  return Buffer.from(randomBytes(16)).toString("base64").slice(0, 23);
}

const now = () => Date.now() / 1000;

interface Row {
  id: number;
  login_at: number;
  valid_until: number;
  remote_addr: string;
  user_agent: string | null;
  sid: string;
  csrf: string;
  tls_login: number | null;
  tls_mixed: number | null;
  app: number | null;
  cli: number | null;
  x_forwarded_for: string | null;
}

export class SessionTable {
  private readonly slots: (Session | null)[];
  private readonly bySid = new Map<string, Session>();
  /** last valid_until written per slot, to throttle write-through of the sliding expiry */
  private readonly persisted: number[];

  constructor(
    readonly size: number,
    private readonly db: Database | null,
    private readonly log: (level: "info" | "warn" | "error", msg: string) => void,
  ) {
    this.slots = Array.from({ length: size }, () => null);
    this.persisted = Array.from({ length: size }, () => 0);
  }

  /** Loads unexpired sessions saved by the previous run (or forgets them when `restore` is off). */
  restore(enabled: boolean): void {
    if (!this.db) return;
    try {
      if (!enabled) {
        this.db.run("DELETE FROM session");
        return;
      }
      const rows = this.db.query<Row, []>("SELECT * FROM session").all();
      const t = now();
      for (const r of rows) {
        if (r.id < 0 || r.id >= this.size || r.valid_until <= t || this.bySid.has(r.sid) || this.slots[r.id]) continue;
        this.put({
          id: r.id,
          sid: r.sid,
          csrf: r.csrf,
          loginAt: r.login_at,
          validUntil: r.valid_until,
          remoteAddr: r.remote_addr,
          userAgent: r.user_agent,
          xForwardedFor: r.x_forwarded_for,
          tlsLogin: !!r.tls_login,
          tlsMixed: !!r.tls_mixed,
          app: !!r.app,
          cli: !!r.cli,
        });
        this.persisted[r.id] = r.valid_until;
      }
      // rows that were not taken (expired, out of range) go
      this.db.run("DELETE FROM session");
      for (const s of this.slots) if (s) this.write(s);
      if (this.bySid.size) this.log("info", `restored ${this.bySid.size} API session(s)`);
    } catch (e) {
      this.log("warn", `could not restore API sessions: ${(e as Error).message}`);
    }
  }

  private put(s: Session): void {
    this.slots[s.id] = s;
    this.bySid.set(s.sid, s);
  }

  /** The live session with this SID, or why there is none. Expired sessions are removed here. */
  lookup(sid: string): Session | "session unknown" | "session expired" {
    const s = this.bySid.get(sid);
    if (!s) return "session unknown";
    if (s.validUntil <= now()) {
      this.remove(s.id);
      return "session expired";
    }
    return s;
  }

  /** Sliding expiry: a successful request moves the end of the session. */
  touch(s: Session, timeout: number, tls: boolean): void {
    s.validUntil = now() + timeout;
    if (tls !== s.tlsLogin) s.tlsMixed = true;
    // write-through at most about once a second per session, and never waiting for the database:
    // this thread answers DNS, and a request's new expiry can be written by the next one
    if (s.validUntil - this.persisted[s.id]! >= 1) this.write(s, false);
  }

  /**
   * Creates a session in a free slot. A full table makes room without moving anybody else's seat
   * when it can: a login from an address that already holds seats takes that address's own least
   * recently used one (a script or an integration that logs in on every poll and never logs out,
   * or a browser that lost its cookie, would otherwise lock its owner out for the session timeout).
   * An address holding none gets a fair share: it takes the least recently used seat of the biggest
   * holder when that one holds more than one; so does a CLI login, always. Null (429) when the
   * table is full of other addresses' single seats.
   */
  create(info: NewSession, timeout: number): Session | null {
    const t = now();
    let free = -1;
    for (let i = 0; i < this.size; i++) {
      const s = this.slots[i];
      if (s && s.validUntil <= t) this.remove(i);
      if (!this.slots[i] && free < 0) free = i;
    }
    if (free < 0) {
      const victim = this.seatToGive(clientKey(info.remoteAddr), info.cli);
      if (!victim) return null;
      // an address reusing its own seat affects nobody else: not worth a line on every poll of an
      // integration that logs in each time
      if (clientKey(victim.remoteAddr) !== clientKey(info.remoteAddr))
        this.log(
          "info",
          `API seats full: the least recently used session of ${victim.remoteAddr} gives way to a login from ${info.remoteAddr}`,
        );
      this.remove(victim.id);
      free = victim.id;
    }
    let sid = newToken();
    while (this.bySid.has(sid)) sid = newToken();
    const s: Session = {
      id: free,
      sid,
      csrf: newToken(),
      loginAt: Math.floor(t),
      validUntil: t + timeout,
      tlsMixed: false,
      ...info,
    };
    this.put(s);
    this.write(s);
    return s;
  }

  /** The seat a login may take: its address's own least recently used, else the biggest holder's, or null. */
  private seatToGive(newcomer: string, cli: boolean): Session | null {
    const byClient = new Map<string, Session[]>();
    for (const s of this.slots) {
      if (!s) continue;
      const k = clientKey(s.remoteAddr);
      const list = byClient.get(k);
      if (list) list.push(s);
      else byClient.set(k, [s]);
    }
    // a CLI session gives way last: it is the local administrator's
    const own = byClient.get(newcomer) ?? [];
    const ownNonCli = own.filter((s) => !s.cli);
    if (ownNonCli.length > 0) return leastRecentlyUsed(ownNonCli);
    if (cli && own.length > 0) return leastRecentlyUsed(own);
    let biggest: Session[] = [];
    for (const list of byClient.values()) if (list.length > biggest.length) biggest = list;
    if (biggest.length === 0) return null;
    if (!cli && biggest.length <= own.length + 1) return null;
    const candidates = biggest.some((s) => !s.cli) ? biggest.filter((s) => !s.cli) : biggest;
    return leastRecentlyUsed(candidates);
  }

  get(id: number): Session | null {
    return this.slots[id] ?? null;
  }

  /** Live sessions, slot order. */
  list(): Session[] {
    const t = now();
    return this.slots.filter((s): s is Session => !!s && s.validUntil > t);
  }

  remove(id: number): boolean {
    const s = this.slots[id];
    if (!s) return false;
    this.slots[id] = null;
    this.bySid.delete(s.sid);
    this.persisted[id] = 0;
    this.dbRun("DELETE FROM session WHERE id = ?", [id]);
    return true;
  }

  clear(): void {
    for (let i = 0; i < this.size; i++) if (this.slots[i]) this.remove(i);
    this.dbRun("DELETE FROM session", []);
  }

  /**
   * `wait`: false for a write that may be left to the next one while another connection writes the
   * database (the table keeps the older row meanwhile).
   */
  private write(s: Session, wait = true): void {
    const db = this.db;
    const insert = () =>
      db?.run(
        "INSERT OR REPLACE INTO session (id, login_at, valid_until, remote_addr, user_agent, sid, csrf, tls_login, tls_mixed, app, cli, x_forwarded_for) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
          s.id,
          s.loginAt,
          s.validUntil,
          s.remoteAddr,
          s.userAgent,
          s.sid,
          s.csrf,
          s.tlsLogin ? 1 : 0,
          s.tlsMixed ? 1 : 0,
          s.app ? 1 : 0,
          s.cli ? 1 : 0,
          s.xForwardedFor,
        ],
      );
    try {
      if (wait || !db) insert();
      else if (!writeWithoutWaiting(db, insert)) return;
    } catch (e) {
      // sessions still work from memory; only persistence across a restart is lost
      this.log("warn", `could not save API session: ${(e as Error).message}`);
    }
    this.persisted[s.id] = s.validUntil;
  }

  private dbRun(sql: string, args: (string | number | null)[]): void {
    if (!this.db) return;
    try {
      this.db.run(sql, args);
    } catch (e) {
      // sessions still work from memory; only persistence across a restart is lost
      this.log("warn", `could not save API session: ${(e as Error).message}`);
    }
  }
}

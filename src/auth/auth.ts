// Who may use the API (README "Authentication"): the main, app and CLI passwords, the 2FA token,
// the login rate limit and the session table. How a request carries its session (cookies, headers,
// CSRF) is HTTP's business: src/api/auth/.
import type { Database } from "bun:sqlite";
import { timingSafeEqual } from "node:crypto";
import type { ConfigStore } from "../config/index.ts";
import { writeCliPassword } from "./cli-password.ts";
import { LoginLimiter } from "./login-limit.ts";
import { hashPasswordAsync, verifyPasswordAsync, verifyPasswordFast, type Verdict } from "./password.ts";
import { SessionTable, type NewSession, type Session } from "./sessions.ts";
import { TotpGuard, type TotpRefusal } from "./totp-guard.ts";

type ApiConfig = ConfigStore["current"]["webserver"]["api"];

/** Whether a login is needed: an empty pwhash turns authentication off, as in Pi-hole. */
export const passwordSetIn = (api: ApiConfig): boolean => api.pwhash !== "";
/** Whether a main-password login needs the 2FA code. */
export const totpOnIn = (api: ApiConfig): boolean => api.totp_secret !== "";

/** Config keys whose change ends every session, as in Pi-hole. */
const SESSION_RESET_KEYS = [
  "webserver.api.pwhash",
  "webserver.api.password",
  "webserver.api.totp_secret",
  "webserver.api.app_pwhash",
];

export type LoginKind = "password" | "app" | "cli";

interface AuthDeps {
  config: ConfigStore;
  /** pihole-FTL.db, whose `session` table keeps sessions across a restart; null: memory only */
  db: Database | null;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** where the CLI password file is written */
  dataDir: string;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class Auth {
  readonly sessions: SessionTable;
  /** the CLI password of this run (<data-dir>/cli_pw), or null when `webserver.api.cli_pw` is off */
  readonly cliPassword: string | null = null;
  /** failed and running password checks per client (webserver.api.loginRateLimit) */
  readonly loginLimiter = new LoginLimiter(() => this.cfg.api.loginRateLimit);
  private readonly totp = new TotpGuard();
  /** set while Moat itself rewrites pwhash (legacy upgrade), which must not end sessions */
  private upgrading = false;

  constructor(private readonly deps: AuthDeps) {
    const cfg = this.cfg;
    this.sessions = new SessionTable(cfg.api.max_sessions, deps.db, deps.log);
    this.sessions.restore(cfg.session.restore);
    if (cfg.api.cli_pw) this.cliPassword = writeCliPassword(deps.dataDir, deps.log);
    deps.config.subscribe((_next, _prev, changed) => {
      if (this.upgrading) return;
      if (changed.some((p) => SESSION_RESET_KEYS.includes(p))) this.sessions.clear();
    });
  }

  private get cfg() {
    return this.deps.config.current.webserver;
  }

  get passwordSet(): boolean {
    return passwordSetIn(this.cfg.api);
  }

  get totpEnabled(): boolean {
    return totpOnIn(this.cfg.api);
  }

  /** seconds a session lives after its last request (webserver.session.timeout) */
  get timeout(): number {
    return this.cfg.session.timeout;
  }

  private async checkHash(password: string, stored: string): Promise<Verdict> {
    return verifyPasswordFast(password, stored) ?? verifyPasswordAsync(password, stored);
  }

  /** Which password this is: CLI first, then the main password, then the app password. */
  async verify(password: string): Promise<LoginKind | null> {
    if (this.cliPassword !== null && this.cfg.api.cli_pw && sameText(password, this.cliPassword)) return "cli";
    const main = await this.checkHash(password, this.cfg.api.pwhash);
    if (main === "legacy") await this.upgradeLegacy(password);
    if (main !== "incorrect") return "password";
    if (this.cfg.api.app_pwhash !== "" && (await this.checkHash(password, this.cfg.api.app_pwhash)) === "correct")
      return "app";
    return null;
  }

  private async upgradeLegacy(password: string): Promise<void> {
    if (this.deps.config.envForced.has("webserver.api.pwhash")) return;
    const hash = await hashPasswordAsync(password);
    this.upgrading = true;
    try {
      const r = this.deps.config.update([{ path: "webserver.api.pwhash", value: hash }]);
      if (r.ok) this.deps.log("info", "Upgrading password from SHA256^2 to BALLOON-SHA256");
    } finally {
      this.upgrading = false;
    }
  }

  /** Checks the 2FA token of a main-password login from `ip`: null when it is good, else why not. */
  checkTotp(token: unknown, ip: string): TotpRefusal | null {
    return this.totp.check(this.cfg.api.totp_secret, token, ip);
  }

  /** A new session, or null (logged) when every seat is taken. */
  open(info: NewSession): Session | null {
    const s = this.sessions.create(info, this.timeout);
    if (!s)
      this.deps.log(
        "warn",
        `No free API seats available (webserver.api.max_sessions = ${this.sessions.size}), not authenticating client`,
      );
    return s;
  }
}

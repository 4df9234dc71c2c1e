// Finds the address of an encrypted upstream given by host name (tls://dns.example, https://dns.example/…).
// The lookup must not go through Moat itself (the system resolver of an appliance is often Moat, whose
// only upstream may be the one being looked up), so it asks dns.bootstrap, else the plain entries of
// dns.upstreams, else the system's resolver. Answers are kept for five minutes.
import { promises as dnsp } from "node:dns";
import { isIP } from "node:net";

const KEEP_MS = 5 * 60_000;

export class Bootstrap {
  private known = new Map<string, { ip: string; until: number }>();
  private inflight = new Map<string, Promise<string>>();

  constructor(private readonly servers: () => string[]) {}

  /** The host's address (IPv4 first), or a rejection that says why there is none. */
  resolve(host: string): Promise<string> {
    if (isIP(host)) return Promise.resolve(host);
    const k = this.known.get(host);
    if (k && k.until > Date.now()) return Promise.resolve(k.ip);
    let p = this.inflight.get(host);
    if (!p) {
      p = this.lookup(host).finally(() => this.inflight.delete(host));
      this.inflight.set(host, p);
    }
    return p;
  }

  /** Forget an address that stopped answering, so the next connection looks it up again. */
  forget(host: string): void {
    this.known.delete(host);
  }

  private async lookup(host: string): Promise<string> {
    const servers = this.servers().map((s) => {
      const [ip, port] = s.split("#") as [string, string | undefined];
      return isIP(ip) === 6 ? `[${ip}]:${port ?? 53}` : `${ip}:${port ?? 53}`;
    });
    const r = new dnsp.Resolver({ timeout: 1500, tries: 2 });
    if (servers.length) r.setServers(servers);
    let ips: string[] = [];
    try {
      ips = await r.resolve4(host);
    } catch {
      ips = await r.resolve6(host).catch(() => []);
    }
    const ip = ips[0];
    if (!ip)
      throw new Error(
        `cannot find the address of ${host} (asked ${servers.length ? servers.join(", ") : "the system's resolver"})`,
      );
    this.known.set(host, { ip, until: Date.now() + KEEP_MS });
    return ip;
  }
}

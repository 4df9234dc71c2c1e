// `moat migrate adguardhome` from AdGuardHome.yaml of schema versions 24, 29 and 34 (with data/ beside
// it), then a real Moat on the migrated data directory: user rules block and allow, each persistent
// client's blocked service blocks that client only while the global one blocks the others, safe search
// holds for the child alone, rewrites answer, the per-domain upstream is asked, the static lease and the
// query log (--with-history) came along, and what has no equivalent is named in the report.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { AG_QUERIES, adguardInstall, loggedReply, selfSigned } from "./adguard-fixtures.ts";
import { removeScratch } from "./fixtures.ts";
import { answer, getJson, migrated } from "./helpers.ts";

let up: Upstream;
let corp: Upstream;
let tls: { cert: string; key: string };
beforeAll(async () => {
  [up, corp, tls] = await Promise.all([
    startUpstream({ addr: "192.0.2.1" }),
    startUpstream({ addr: "192.0.2.2" }),
    selfSigned(),
  ]);
});
afterAll(async () => {
  await Promise.all([up.stop(), corp.stop()]);
  removeScratch();
});

describe.each([24, 29, 34])("moat migrate adguardhome from schema version %d", (version) => {
  test("what it carried is in force in the Moat started on it", async () => {
    const yaml = adguardInstall(version, up.address, corp.address, version === 34 ? tls : null);
    const { moat, dataDir, cli } = await migrated("adguardhome", yaml, "--with-history");
    try {
      const out = cli.stdout;
      expect(out).toContain("carried: 2 persistent clients (each a group of its own)");
      expect(out).toContain("carried: 1 block list");
      expect(out).toContain("carried: 1 allow list");
      expect(out).toContain("carried: 6 user rules (as the custom rules, AdGuard's syntax)");
      expect(out).toContain(`carried: ${AG_QUERIES} stored queries`);
      expect(out).toContain("carried: 1 per-domain upstream");
      expect(out).not.toContain("rewrite *.wild.lan");
      expect(out).toContain(
        `carried: upstream mode ${version === 24 ? "fastest_addr as FASTEST" : "parallel as PARALLEL"}`,
      );
      // each thing without an equivalent, one line with its reason
      for (const line of [
        "not carried: upstream quic://dns.adguard-dns.com: quic upstreams are not supported",
        "not carried: filters /opt/adguardhome/my-list.txt: a local file list",
        "not carried: user rule ||tagged.example^$ctag=device_tv: the modifier $ctag is not supported",
        "not carried: blocked_services: not_a_moat_service: not a service in Moat's catalogue",
      ])
        expect(out).toContain(line);
      if (version !== 24) expect(out).toContain("not carried: client kid safe_search: yandex:");
      // the history, before this test's own queries
      const db = await getJson(moat, "/api/info/database");
      expect(db.queries_disk).toBe(AG_QUERIES);
      // the answer records of the replies AdGuard Home logged (a CNAME chain, an AAAA), a blocked one's none
      for (const i of [1, 2]) {
        const [row] = (await getJson(moat, `/api/queries?domain=site${i}.example&disk=true`)).queries;
        expect(row.answers).toBe(loggedReply(i).text);
      }
      expect((await getJson(moat, "/api/queries?domain=denied.example&disk=true")).queries[0].answers).toBeNull();
      const sum = await getJson(moat, "/api/stats/summary");
      expect({ total: sum.queries.total, blocked: sum.queries.blocked }).toEqual({
        total: AG_QUERIES,
        blocked: AG_QUERIES / 3,
      });

      for (const who of ["127.0.0.2", "127.0.0.3"]) {
        // user rules (the custom rules): ||name^ blocks the name and below it, @@ allows one below it, /regex/, a hosts line
        expect(await answer(moat, "denied.example", who)).toBe("0.0.0.0");
        expect(await answer(moat, "www.denied.example", who)).toBe("0.0.0.0");
        expect(await answer(moat, "ok.denied.example", who)).toBe("192.0.2.1");
        expect(await answer(moat, "tracker42.example", who)).toBe("0.0.0.0");
        expect(await answer(moat, "hosts-blocked.example", who)).toBe("0.0.0.0");
        expect(await answer(moat, "www.hosts-blocked.example", who)).toBe("192.0.2.1");
        // $important wins over the exception, as in AdGuard Home
        expect(await answer(moat, "important.example", who)).toBe("0.0.0.0");
        // rewrites, and the per-domain upstream
        expect(await answer(moat, "nas.lan", who)).toBe("192.168.1.10");
        expect(await answer(moat, "files.lan", who)).toBe("nas.lan 192.168.1.10");
        // two rewrites of one name: AdGuard Home answers both, and so does Moat
        expect((await answer(moat, "pair.lan", who)).split(" ").sort()).toEqual(["192.168.1.21", "192.168.1.22"]);
        // wildcard rewrites: every name below the domain, to an address or to a name
        expect(await answer(moat, "tv.wild.lan", who)).toBe("192.168.1.20");
        expect(await answer(moat, "a.b.cdn.lan", who)).toBe("nas.lan 192.168.1.10");
        expect(await answer(moat, "host.corp.example", who)).toBe("192.0.2.2");
      }
      // the child's own blocked service, and not the parent's; the global one for the parent only
      expect(await answer(moat, "www.roblox.com", "127.0.0.2")).toBe("0.0.0.0");
      expect(await answer(moat, "www.roblox.com", "127.0.0.3")).toBe("192.0.2.1");
      if (version === 29) {
        // the global services pause on Mondays 09:00-17:30: Moat blocks them the rest of the week
        const s = await getJson(moat, "/api/schedules/groups");
        const dad = s.groups.find((g: { name: string }) => g.name === "dad").schedule;
        expect(dad.services).toEqual(["tiktok"]);
        expect(dad.windows.filter((w: { days: number[] }) => w.days[0] === 1)).toEqual([
          { days: [1], start: "00:00", end: "09:00" },
          { days: [1], start: "17:30", end: "24:00" },
        ]);
        expect(dad.windows.filter((w: { days: number[] }) => w.days[0] === 2)).toEqual([
          { days: [2], start: "00:00", end: "24:00" },
        ]);
      } else expect(await answer(moat, "www.tiktok.com", "127.0.0.3")).toBe("0.0.0.0");
      expect(await answer(moat, "www.tiktok.com", "127.0.0.2")).toBe("192.0.2.1");
      // safe search for the child only
      expect(await answer(moat, "www.bing.com", "127.0.0.2")).toContain("strict.bing.com");
      expect(await answer(moat, "www.bing.com", "127.0.0.3")).toBe("192.0.2.1");
      // the client entries (an address and a MAC) in the client's own group, its tags in the comment
      const clients = await getJson(moat, "/api/clients");
      const kid = clients.clients.filter((c: { comment: string }) => c.comment === "kid (tags: user_child)");
      expect(kid.map((c: { client: string }) => c.client).sort()).toEqual(["127.0.0.2", "52:54:00:aa:bb:09"]);
      // upstreams, bootstrap, the static lease, the DHCP range
      const cfg = await getJson(moat, "/api/config");
      // the per-domain upstream as AdGuard wrote it, in Moat's spelling
      expect(cfg.config.dns.upstreams).toEqual([up.address, `[/corp.example/]${corp.address}`]);
      expect(cfg.config.dns.upstreamMode).toBe(version === 24 ? "FASTEST" : "PARALLEL");
      expect(cfg.config.dns.revServers).toEqual([]);
      // disallowed_clients: refused, logged as such; everyone else is answered (above)
      expect(out).toContain("carried: 3 disallowed clients");
      expect(cfg.config.dns.access).toEqual({ allowed: [], disallowed: ["127.0.0.9", "10.10.0.0/16", "badkid"] });
      expect(await answer(moat, "www.tiktok.com", "127.0.0.9")).toBe("REFUSED");
      expect(cfg.config.dns.bootstrap).toEqual(["9.9.9.10", "149.112.112.10"]);
      expect(cfg.config.dhcp.hosts).toEqual(["52:54:00:aa:bb:02,192.168.1.62,printer"]);
      expect([cfg.config.dhcp.start, cfg.config.dhcp.end, cfg.config.dhcp.leaseTime]).toEqual([
        "192.168.1.100",
        "192.168.1.200",
        "1440m",
      ]);
      if (version === 34) {
        expect(out).toContain("carried: the TLS certificate and key");
        expect(existsSync(cfg.config.webserver.tls.cert)).toBe(true);
      }
    } finally {
      await moat.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

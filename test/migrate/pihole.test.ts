// `moat migrate pihole` from a Pi-hole v6 directory, a v5 directory, a v5 Teleporter .tar.gz and a v6
// .zip, each into a new data directory, then a real Moat on it: entries block and allow (per group),
// the gravity rows block before any download, local names and CNAMEs answer, the per-domain server is
// asked, the reservation and the lease exist, and the stored queries are counted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import {
  HISTORY,
  V5_PASSWORD,
  removeScratch,
  piholeV5Archive,
  piholeV5Dir,
  piholeV6Archive,
  piholeV6Dir,
} from "./fixtures.ts";
import { answer, getJson, loginSid, migrated } from "./helpers.ts";

let up: Upstream;
let corp: Upstream;
beforeAll(async () => {
  [up, corp] = await Promise.all([startUpstream({ addr: "192.0.2.1" }), startUpstream({ addr: "192.0.2.2" })]);
});
afterAll(async () => {
  await Promise.all([up.stop(), corp.stop()]);
  removeScratch();
});

const SOURCES = [
  { name: "a Pi-hole v6 directory", make: () => piholeV6Dir(up.address, corp.address), history: true, v5: false },
  { name: "a Pi-hole v5 directory", make: () => piholeV5Dir(up.address, corp.address), history: true, v5: true },
  {
    name: "a Pi-hole v5 Teleporter archive (.tar.gz)",
    make: () => piholeV5Archive(up.address, corp.address),
    history: false,
    v5: true,
  },
  {
    name: "a Pi-hole v6 Teleporter archive (.zip)",
    make: () => piholeV6Archive(up.address, corp.address),
    history: false,
    v5: false,
  },
];

describe.each(SOURCES)("moat migrate pihole from $name", ({ make, history, v5 }) => {
  test("what it carried is in force in the Moat started on it", async () => {
    const source = make();
    const { moat, dataDir, cli } = await migrated("pihole", source);
    try {
      // v5's password (setupVars.conf WEBPASSWORD) still opens the API
      const sid = v5 ? await loginSid(moat, V5_PASSWORD) : undefined;
      expect(cli.stdout).toContain("carried: 1 group");
      expect(cli.stdout).toContain("carried: 3 deny entries");
      expect(cli.stdout).toContain("carried: 2 local DNS records");
      if (history) {
        expect(cli.stdout).toContain(`carried: ${HISTORY} stored queries`);
        // the history, before this test's own queries: on disk and in the 24 h window
        const db = await getJson(moat, "/api/info/database", sid);
        expect(db.queries_disk).toBe(HISTORY);
        const sum = await getJson(moat, "/api/stats/summary", sid);
        expect({ total: sum.queries.total, blocked: sum.queries.blocked }).toEqual({
          total: HISTORY,
          blocked: HISTORY / 2,
        });
      }
      // deny exact, deny regex, a list's row (no gravity run: the rows came along), an allow entry over it
      expect(await answer(moat, "denied.example")).toBe("0.0.0.0");
      expect(await answer(moat, "a.tracker.example")).toBe("0.0.0.0");
      expect(await answer(moat, "off.example")).toBe("192.0.2.1");
      if (!source.endsWith(".tar.gz")) {
        expect(cli.stdout).toContain("carried: 2 domains of the lists' last download");
        expect(await answer(moat, "ads.example")).toBe("0.0.0.0");
      }
      expect(await answer(moat, "allowed-ads.example")).toBe("192.0.2.1");
      // the kids group: its client (127.0.0.2) gets its entry, the parent's device does not
      expect(await answer(moat, "kids-only.example", "127.0.0.2")).toBe("0.0.0.0");
      expect(await answer(moat, "kids-only.example", "127.0.0.3")).toBe("192.0.2.1");
      expect(await answer(moat, "denied.example", "127.0.0.2")).toBe("0.0.0.0");
      // local records and CNAMEs
      expect(await answer(moat, "nas.lan")).toBe("192.168.1.10");
      expect(await answer(moat, "files.lan")).toBe("nas.lan 192.168.1.10");
      // the per-domain server answers its domain
      expect(await answer(moat, "host.corp.example")).toBe("192.0.2.2");
      // the reservation and the lease
      const cfg = await getJson(moat, "/api/config/dhcp/hosts", sid);
      expect(cfg.config.dhcp.hosts).toEqual(["52:54:00:aa:bb:02,192.168.1.62,printer"]);
      const leases = await getJson(moat, "/api/dhcp/leases", sid);
      expect(leases.leases.map((l: { ip: string }) => l.ip)).toEqual(["192.168.1.61"]);
      const client = await getJson(moat, "/api/clients/127.0.0.2", sid);
      expect(client.clients[0].comment).toBe("tablet");
    } finally {
      await moat.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

// The image test's DHCP card (scripts/image-lib/lan.sh), the parts that need no namespaces, run for real with
// bash: the settings file it writes is one the appliance's parser (image/rootfs/usr/lib/moat/settings.sh)
// accepts with DHCP on; the lease check takes only an address of the pool with Moat as DNS server and
// MOAT_GATEWAY as router; the range test compares addresses as numbers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const LAN_SH = join(ROOT, "scripts/image-lib/lan.sh");
const SETTINGS_SH = join(ROOT, "image/rootfs/usr/lib/moat/settings.sh");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "moat-image-lan-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bash(script: string, env: Record<string, string> = {}) {
  const r = Bun.spawnSync(["bash", "-c", `log() { echo "$*" >&2; }; source '${LAN_SH}'; ${script}`], {
    env: { PATH: process.env.PATH!, ...env },
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("ipv4_in_range", () => {
  test.each([
    ["192.168.77.100", true],
    ["192.168.77.119", true],
    ["192.168.77.110", true],
    ["192.168.077.108", true], // parts read as decimal, not octal
    ["192.168.77.99", false],
    ["192.168.77.120", false],
    ["192.168.78.110", false], // same last octet, another network
    ["192.168.77.1000", false],
    ["192.168.77.256", false],
    ["192.168.77.1x1", false],
    ["192.168.77", false],
    ["", false],
  ])("%s in 192.168.77.100-192.168.77.119: %p", (ip, inside) => {
    expect(bash(`ipv4_in_range '${ip}' 192.168.77.100 192.168.77.119`).code === 0).toBe(inside);
  });
});

describe("lan_settings", () => {
  test("the LAN card's settings file turns DHCP on for the parser the appliance runs, keeping the rest", () => {
    const base = join(dir, "base.txt");
    writeFileSync(
      base,
      "MOAT_PASSWORD=pw\nMOAT_UPSTREAMS=127.0.0.1#5335\nMOAT_GATEWAY=not-an-address\nMOAT_SSH_KEY=\n",
    );
    const lan = join(dir, "lan.txt");
    const w = bash(`lan_settings '${base}' >'${lan}'`);
    expect(w.code).toBe(0);
    const r = Bun.spawnSync([
      "bash",
      "-c",
      `source '${SETTINGS_SH}'; parse_settings '${lan}'; echo "$S_PASSWORD|$S_UPSTREAMS|$S_ADDRESS|$S_GATEWAY|$S_DHCP_START|$S_DHCP_END|$SETTINGS_ERRORS"`,
    ]);
    expect(r.stderr.toString()).toBe("");
    expect(r.stdout.toString().trim()).toBe(
      "pw|127.0.0.1#5335|192.168.77.2/24|192.168.77.1|192.168.77.100|192.168.77.119|0",
    );
  });
});

describe("lease_told_ok", () => {
  function told(lines: string[]) {
    const f = join(dir, `told-${Math.random().toString(36).slice(2)}`);
    writeFileSync(f, lines.map((l) => `${l}\n`).join(""));
    const r = bash(`lease_told_ok '${f}'; rc=$?; echo "$LEASE_IP"; exit $rc`);
    return { ok: r.code === 0, ip: r.out.trim() };
  }

  test("a lease from the pool with the gateway as router and Moat as DNS server", () => {
    expect(told(["deconfig   ", "bound 192.168.77.107 192.168.77.1 192.168.77.2"])).toEqual({
      ok: true,
      ip: "192.168.77.107",
    });
  });

  test("the last bound lease counts", () => {
    expect(
      told(["bound 192.168.77.150 192.168.77.1 192.168.77.2", "bound 192.168.77.101 192.168.77.1 192.168.77.2"]).ok,
    ).toBe(true);
    expect(
      told(["bound 192.168.77.101 192.168.77.1 192.168.77.2", "bound 192.168.77.150 192.168.77.1 192.168.77.2"]).ok,
    ).toBe(false);
  });

  test("refused: outside the pool, another DNS server or router, no lease at all", () => {
    expect(told(["bound 192.168.77.150 192.168.77.1 192.168.77.2"]).ok).toBe(false);
    expect(told(["bound 192.168.77.107 192.168.77.1 9.9.9.9"]).ok).toBe(false);
    expect(told(["bound 192.168.77.107 192.168.77.2 192.168.77.2"]).ok).toBe(false);
    expect(told(["deconfig   ", "leasefail   "])).toEqual({ ok: false, ip: "" });
  });
});

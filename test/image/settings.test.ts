// The appliance's first-boot settings file: parser (image/rootfs/usr/lib/moat/settings.sh) and the
// firstboot script that applies it, run for real with bash in a scratch root directory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const LIB = resolve(import.meta.dir, "../../image/rootfs/usr/lib/moat");
const SETTINGS_SH = join(LIB, "settings.sh");
const FIRSTBOOT = join(LIB, "firstboot");
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq0Lr6ICbVz9CBTS6HZdd5xTTMyZW8ayN8ucOIsJAu5 me@laptop";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "moat-settings-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(text: string): string {
  const p = join(dir, `settings-${n++}.txt`);
  writeFileSync(p, text);
  return p;
}

function bash(script: string, env: Record<string, string> = {}) {
  const r = Bun.spawnSync(["bash", "-c", script], { env: { PATH: process.env.PATH!, ...env } });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

const VARS = [
  "S_PASSWORD",
  "S_UPSTREAMS",
  "S_ADDRESS",
  "S_GATEWAY",
  "S_WIFI_COUNTRY",
  "S_WIFI_SSID",
  "S_WIFI_PASSWORD",
] as const;
function parse(text: string) {
  const r = bash(
    `source '${SETTINGS_SH}'; parse_settings '${file(text)}'; ` +
      VARS.map((v) => `printf '%s\\0' "$${v}"`).join("; ") +
      `; printf '%s\\0' "\${#S_SSH_KEYS[@]}" "$SETTINGS_ERRORS"`,
  );
  expect(r.code).toBe(0);
  const parts = r.out.split("\0");
  const values = Object.fromEntries(VARS.map((v, i) => [v, parts[i]])) as Record<(typeof VARS)[number], string>;
  return { ...values, keys: Number(parts[VARS.length]), errors: Number(parts[VARS.length + 1]), log: r.err };
}

describe("parse_settings", () => {
  test("reads every setting", () => {
    const s = parse(
      [
        "# comment",
        "MOAT_PASSWORD=correct horse battery",
        "MOAT_UPSTREAMS=9.9.9.9;2620:fe::fe#53, 1.1.1.1",
        "MOAT_ADDRESS=192.168.1.2/24",
        "MOAT_GATEWAY=192.168.1.1",
        "MOAT_WIFI_COUNTRY=de",
        'MOAT_WIFI_SSID="My Net"',
        "MOAT_WIFI_PASSWORD=secret-passphrase",
        `MOAT_SSH_KEY=${KEY}`,
        `MOAT_SSH_KEY=${KEY.replace("me@laptop", "other")}`,
      ].join("\n"),
    );
    expect(s).toMatchObject({
      S_PASSWORD: "correct horse battery",
      S_UPSTREAMS: "9.9.9.9;2620:fe::fe#53;1.1.1.1",
      S_ADDRESS: "192.168.1.2/24",
      S_GATEWAY: "192.168.1.1",
      S_WIFI_COUNTRY: "DE",
      S_WIFI_SSID: "My Net",
      S_WIFI_PASSWORD: "secret-passphrase",
      keys: 2,
      errors: 0,
    });
    expect(s.log).toBe("");
  });

  test("empty values keep the defaults", () => {
    const s = parse("MOAT_PASSWORD=\nMOAT_UPSTREAMS=  \nMOAT_SSH_KEY=\n");
    expect(s).toMatchObject({ S_PASSWORD: "", S_UPSTREAMS: "", keys: 0, errors: 0 });
  });

  test("Windows line endings and a missing final newline are read", () => {
    const s = parse("MOAT_PASSWORD=pw1\r\nMOAT_UPSTREAMS=9.9.9.9\r\nMOAT_GATEWAY=10.0.0.1");
    expect(s).toMatchObject({ S_PASSWORD: "pw1", S_UPSTREAMS: "9.9.9.9", S_GATEWAY: "10.0.0.1" });
  });

  test.each([
    ["MOAT_UPSTREAMS=9.9.9.9;dns.example", "MOAT_UPSTREAMS rejected: 'dns.example' is not an IP address"],
    ["MOAT_UPSTREAMS=9.9.9.9#99999", "MOAT_UPSTREAMS rejected: '9.9.9.9#99999'"],
    ["MOAT_UPSTREAMS=256.1.1.1", "MOAT_UPSTREAMS rejected"],
    ["MOAT_ADDRESS=192.168.1.2", "MOAT_ADDRESS rejected: '192.168.1.2' is not an IPv4 address with a prefix"],
    ["MOAT_ADDRESS=192.168.1.2/33", "MOAT_ADDRESS rejected"],
    ["MOAT_GATEWAY=router", "MOAT_GATEWAY rejected: 'router' is not an IPv4 address"],
    ["MOAT_WIFI_COUNTRY=Germany", "MOAT_WIFI_COUNTRY rejected: 'GERMANY' is not a two-letter country code"],
    ["MOAT_WIFI_PASSWORD=short", "MOAT_WIFI_PASSWORD rejected: a WPA passphrase has 8-63"],
    ["MOAT_WIFI_SSID=abcdefghijklmnopqrstuvwxyz0123456789", "MOAT_WIFI_SSID rejected: longer than 32"],
    ["MOAT_SSH_KEY=AAAAC3Nza", "MOAT_SSH_KEY rejected: not an OpenSSH public key"],
  ])("%s is rejected with a clear message and the default kept", (line, message) => {
    const s = parse(`MOAT_PASSWORD=kept\n${line}\n`);
    expect(s.errors).toBe(1);
    expect(s.log).toContain(`<3>moat-settings.txt line 2: ${message}`);
    expect(s.log).toContain("keeping the default");
    expect(s).toMatchObject({
      S_PASSWORD: "kept",
      S_UPSTREAMS: "",
      S_ADDRESS: "",
      S_GATEWAY: "",
      S_WIFI_COUNTRY: "",
      keys: 0,
    });
  });

  test("an address without a gateway keeps DHCP", () => {
    const s = parse("MOAT_ADDRESS=192.168.1.2/24\n");
    expect(s.S_ADDRESS).toBe("");
    expect(s.log).toContain("MOAT_ADDRESS rejected: MOAT_GATEWAY is missing; keeping DHCP");
  });

  test("unknown keys and junk lines are warnings, not errors", () => {
    const s = parse("MOAT_PASWORD=typo\nthis is not a setting\nMOAT_PASSWORD=ok\n");
    expect(s).toMatchObject({ S_PASSWORD: "ok", errors: 0 });
    expect(s.log).toContain("<4>moat-settings.txt line 1: unknown setting 'MOAT_PASWORD' ignored");
    expect(s.log).toContain("<4>moat-settings.txt line 2: not a KEY=value line, ignored");
  });
});

describe("redact_settings", () => {
  test("removes the password and the Wi-Fi passphrase, keeps the rest", () => {
    const f = file(
      `# c\nMOAT_PASSWORD=hunter22\nMOAT_WIFI_SSID=Net\nMOAT_WIFI_PASSWORD = "pass phrase"\r\nMOAT_SSH_KEY=${KEY}\n`,
    );
    const r = bash(`source '${SETTINGS_SH}'; redact_settings '${f}'`);
    expect(r.out).toBe(`# c\nMOAT_PASSWORD=\nMOAT_WIFI_SSID=Net\nMOAT_WIFI_PASSWORD=\nMOAT_SSH_KEY=${KEY}\n`);
  });
});

describe("toml_set_upstreams", () => {
  const set = (toml: string, list: string) => {
    const r = bash(`source '${SETTINGS_SH}'; toml_set_upstreams '${file(toml)}' '${list}'`);
    expect(r.code).toBe(0);
    return r.out;
  };

  test("replaces a multi-line array in [dns], leaving other tables alone", () => {
    const out = set(
      '# head\n[dns]\n  # Upstream DNS servers\n  upstreams = [\n    "8.8.8.8",\n    "8.8.4.4",\n  ]\n  port = 53\n\n[dns.cache]\n  size = 5\n[misc]\n  upstreams = ["not dns"]\n',
      "9.9.9.9;1.1.1.1#5353",
    );
    const t = Bun.TOML.parse(out) as any;
    expect(t.dns.upstreams).toEqual(["9.9.9.9", "1.1.1.1#5353"]);
    expect(t.dns.port).toBe(53);
    expect(t.dns.cache.size).toBe(5);
    expect(t.misc.upstreams).toEqual(["not dns"]);
    expect(out).not.toContain("8.8.8.8");
  });

  test("adds the key to a [dns] table without it", () => {
    const t = Bun.TOML.parse(set('[dns]\n  port = 53\n[webserver]\n  port = "80"\n', "9.9.9.9")) as any;
    expect(t).toEqual({ dns: { port: 53, upstreams: ["9.9.9.9"] }, webserver: { port: "80" } });
  });

  test("adds a [dns] table when there is none", () => {
    const t = Bun.TOML.parse(set('[webserver]\n  port = "80"\n', "9.9.9.9")) as any;
    expect(t).toEqual({ dns: { upstreams: ["9.9.9.9"] }, webserver: { port: "80" } });
  });
});

describe("firstboot", () => {
  // A scratch root: the real script and default config, a stand-in for `moat password` and systemctl
  // that record how they were called.
  function scratchRoot(settings: string) {
    const root = mkdtempSync(join(dir, "root-"));
    mkdirSync(join(root, "boot/moat"), { recursive: true });
    mkdirSync(join(root, "etc/moat"), { recursive: true });
    cpSync(resolve(LIB, "../../share/moat"), join(root, "usr/share/moat"), { recursive: true });
    writeFileSync(join(root, "boot/moat/moat-settings.txt"), settings);
    const rec = join(root, "record");
    writeFileSync(
      rec,
      `#!/bin/bash\n{ printf '%s ' "$(basename "$0")" "$@"; printf 'stdin=%s\\n' "$([ "$1" = password ] && cat)"; } >>'${root}/calls'\n`,
    );
    chmodSync(rec, 0o755);
    const env = { ROOT: root, MOAT_BIN: rec, SYSTEMCTL: rec, AS_MOAT: "" };
    const run = () => bash(`'${FIRSTBOOT}'`, env);
    const read = (p: string) => readFileSync(join(root, p), "utf8");
    return { root, run, read, calls: () => (existsSync(join(root, "calls")) ? read("calls") : "") };
  }

  test("applies every setting, removes the secrets, and does nothing the second time", () => {
    const r = scratchRoot(
      `MOAT_PASSWORD=s3cret pw\nMOAT_UPSTREAMS=1.1.1.1;9.9.9.9\nMOAT_ADDRESS=192.168.7.2/24\nMOAT_GATEWAY=192.168.7.1\n` +
        `MOAT_WIFI_COUNTRY=GB\nMOAT_WIFI_SSID=Home\nMOAT_WIFI_PASSWORD=wifi-passphrase\nMOAT_SSH_KEY=${KEY}\n`,
    );
    const first = r.run();
    expect(first.code).toBe(0);
    expect(first.err).toContain("settings file applied (0 setting(s) rejected)");
    expect(r.calls()).toContain(
      "record password --config " +
        join(r.root, "etc/moat/pihole.toml") +
        ` --data-dir ${join(r.root, "etc/moat")} stdin=s3cret pw`,
    );
    expect((Bun.TOML.parse(r.read("etc/moat/pihole.toml")) as any).dns.upstreams).toEqual(["1.1.1.1", "9.9.9.9"]);
    expect(r.read("etc/systemd/network/10-moat-static.network")).toContain(
      "Type=wlan\n\n[Network]\nAddress=192.168.7.2/24\nGateway=192.168.7.1",
    );
    const wpa = r.read("etc/wpa_supplicant/wpa_supplicant-wlan0.conf");
    expect(wpa).toContain("country=GB");
    expect(wpa).toContain('ssid="Home"');
    expect(wpa).toContain('psk="wifi-passphrase"');
    expect(r.read("root/.ssh/authorized_keys")).toBe(`${KEY}\n`);
    expect(r.calls()).toContain("record enable ssh.service");
    expect(r.calls()).toContain("record enable wpa_supplicant@wlan0.service");
    const left = r.read("boot/moat/moat-settings.txt");
    expect(left).not.toContain("s3cret");
    expect(left).not.toContain("wifi-passphrase");
    expect(left).toContain("MOAT_WIFI_SSID=Home");

    const callsBefore = r.calls();
    const second = r.run();
    expect(second.code).toBe(0);
    expect(second.err).toContain("already applied");
    expect(r.calls()).toBe(callsBefore);
  });

  test("bad values keep the defaults: DHCP, default upstreams, SSH off", () => {
    const r = scratchRoot("MOAT_UPSTREAMS=dns.google\nMOAT_ADDRESS=10.0.0.5\nMOAT_SSH_KEY=password123\n");
    const out = r.run();
    expect(out.code).toBe(0);
    expect(out.err).toContain("MOAT_UPSTREAMS rejected");
    expect(out.err).toContain("MOAT_ADDRESS rejected");
    expect(out.err).toContain("MOAT_SSH_KEY rejected");
    expect(out.err).toContain("settings file applied (3 setting(s) rejected)");
    expect((Bun.TOML.parse(r.read("etc/moat/pihole.toml")) as any).dns.upstreams).toEqual([
      "9.9.9.9",
      "149.112.112.112",
    ]);
    expect(existsSync(join(r.root, "etc/systemd/network/10-moat-static.network"))).toBe(false);
    expect(existsSync(join(r.root, "root/.ssh/authorized_keys"))).toBe(false);
    expect(r.calls()).toContain("record disable --now ssh.service ssh.socket");
    expect(r.calls()).not.toContain("password");
  });

  test("MOAT_DHCP_RANGE turns the DHCP server on in the address's network, and off again with 'off'", () => {
    const r = scratchRoot(
      "MOAT_ADDRESS=192.168.7.2/24\nMOAT_GATEWAY=192.168.7.1\nMOAT_DHCP_RANGE=192.168.7.100-192.168.7.199\n",
    );
    const out = r.run();
    expect(out.code).toBe(0);
    expect(out.err).toContain("DHCP server on: 192.168.7.100-192.168.7.199");
    const toml = Bun.TOML.parse(r.read("etc/moat/pihole.toml")) as any;
    expect(toml.dhcp).toMatchObject({
      active: true,
      start: "192.168.7.100",
      end: "192.168.7.199",
      router: "192.168.7.1",
    });
    expect(toml.dns.upstreams).toEqual(["9.9.9.9", "149.112.112.112"]); // the rest of the file as it was

    writeFileSync(join(r.root, "boot/moat/moat-settings.txt"), "MOAT_DHCP_RANGE=off\n");
    expect(r.run().code).toBe(0);
    const after = Bun.TOML.parse(r.read("etc/moat/pihole.toml")) as any;
    expect(after.dhcp).toMatchObject({ active: false, start: "192.168.7.100", end: "192.168.7.199" });
  });

  test("a DHCP range without a fixed address, outside its network or malformed leaves DHCP off", () => {
    for (const [text, message] of [
      ["MOAT_DHCP_RANGE=192.168.7.100-192.168.7.199\n", "MOAT_DHCP_RANGE rejected: it needs MOAT_ADDRESS"],
      [
        "MOAT_ADDRESS=192.168.7.2/24\nMOAT_GATEWAY=192.168.7.1\nMOAT_DHCP_RANGE=10.0.0.10-10.0.0.20\n",
        "must lie in its network",
      ],
      [
        "MOAT_ADDRESS=192.168.7.2/24\nMOAT_GATEWAY=192.168.7.1\nMOAT_DHCP_RANGE=192.168.7.200-192.168.7.100\n",
        "is not a range like",
      ],
      ["MOAT_ADDRESS=192.168.7.2/24\nMOAT_GATEWAY=192.168.7.1\nMOAT_DHCP_RANGE=192.168.7.100\n", "is not a range like"],
    ] as const) {
      const r = scratchRoot(text);
      const out = r.run();
      expect(out.code).toBe(0);
      expect(out.err).toContain(message);
      expect((Bun.TOML.parse(r.read("etc/moat/pihole.toml")) as any).dhcp?.active ?? false).toBe(false);
    }
  });

  test("an edited settings file is applied again (a new password)", () => {
    const r = scratchRoot("MOAT_PASSWORD=first-pw\n");
    expect(r.run().code).toBe(0);
    writeFileSync(join(r.root, "boot/moat/moat-settings.txt"), "MOAT_PASSWORD=second-pw\n");
    expect(r.run().code).toBe(0);
    expect(r.calls()).toContain("stdin=second-pw");
    expect(r.read("boot/moat/moat-settings.txt")).toBe("MOAT_PASSWORD=\n");
  });
});

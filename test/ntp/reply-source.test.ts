// NTP answers leave from the address the request was sent to: 127.0.0.2 (lo carries only 127.0.0.1,
// so only the wildcard socket sees it) is answered from 127.0.0.2, as 127.0.0.1 and ::1 are. A client
// that checks the source, as ntpd and chrony do, would drop any other. Moat runs in a namespace of
// its own, so no other NTP server on this machine's port 123 takes the requests; it is removed after.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canMakeNamespaces, sh } from "../dhcp/lan.ts";
import { BUN, ROOT } from "../harness/moat.ts";

const ns = `mntp${Math.random().toString(36).slice(2, 7)}`;
const dataDir = mkdtempSync(join(tmpdir(), "moat-ntp-"));
let moat: ReturnType<typeof Bun.spawn> | null = null;

function ask(host: string): { from: string; mode: number; origin: number } | null {
  const out = sh(["ip", "netns", "exec", ns, BUN, join(ROOT, "test/ntp/source-client.ts"), host]);
  return JSON.parse(out.trim());
}

describe.skipIf(!canMakeNamespaces())("NTP answers from the address asked", () => {
  beforeAll(async () => {
    sh(["ip", "netns", "add", ns]);
    sh(["ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"]);
    moat = Bun.spawn(["ip", "netns", "exec", ns, BUN, join(ROOT, "src/main.ts"), "serve", "--data-dir", dataDir], {
      env: {
        ...(process.env as Record<string, string>),
        FTLCONF_webserver_port: "127.0.0.1:8080",
        FTLCONF_dns_port: "1053",
        FTLCONF_dns_tls_port: "0",
      },
      cwd: ROOT,
      stdout: "ignore",
      stderr: "ignore",
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && ask("127.0.0.1") === null) await Bun.sleep(200);
  }, 30_000);

  afterAll(async () => {
    moat?.kill("SIGTERM");
    await moat?.exited;
    sh(["ip", "netns", "del", ns], { allowFail: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const host of ["127.0.0.2", "127.3.2.1", "127.0.0.1", "::1"])
    test(host, () => {
      expect(ask(host)).toEqual({ from: host, mode: 4, origin: 0xdeadbeef });
    });
});

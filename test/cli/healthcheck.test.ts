// `moat healthcheck` (the container's HEALTHCHECK) against the real server: healthy while DNS and the API
// answer, a sentence and exit 1 once they stop. `--defaults`: a new data directory starts from that file.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";

const MAIN = join(ROOT, "src/main.ts");
let m: MoatProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), "moat-health-"));
afterAll(async () => {
  await m?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test("healthy while DNS and the API answer; unhealthy, exit 1, once the server is gone", async () => {
  m = await startMoat();
  const env = { FTLCONF_webserver_port: `127.0.0.1:${m.httpPort}`, FTLCONF_dns_port: String(m.dnsPort) };
  const cmd = [BUN, MAIN, "healthcheck", "--data-dir", m.dataDir];
  const ok = await run(cmd, { env });
  expect(ok.stderr).toBe("");
  expect(ok.stdout).toBe(
    `healthy: DNS answered on port ${m.dnsPort}, the API on http://127.0.0.1:${m.httpPort}/api/info/login\n`,
  );
  expect(ok.code).toBe(0);
  await m.stop();
  const down = await run(cmd, { env });
  expect(down.code).toBe(1);
  expect(down.stderr).toContain(
    `unhealthy: no DNS answer on 127.0.0.1 port ${m.dnsPort} within 3 s; no API answer on http://127.0.0.1:${m.httpPort}/api/info/login`,
  );
});

test("--defaults: a new data directory's config starts as that file; an existing one is left as it is", async () => {
  const defaults = join(dir, "defaults.toml");
  writeFileSync(defaults, '[dns]\n  upstreams = ["192.0.2.53"]\n');
  const data = join(dir, "data");
  const r = await run([BUN, MAIN, "password", "--data-dir", data, "--defaults", defaults, "pw"]);
  expect(r.code).toBe(0);
  const text = readFileSync(join(data, "pihole.toml"), "utf8");
  expect(text).toContain('"192.0.2.53"');
  expect(text).toContain("pwhash");
  writeFileSync(defaults, '[dns]\n  upstreams = ["198.51.100.53"]\n');
  await run([BUN, MAIN, "password", "--data-dir", data, "--defaults", defaults, "pw2"]);
  expect(readFileSync(join(data, "pihole.toml"), "utf8")).toContain('"192.0.2.53"');
});

// Config loading and the start-up contract through the real CLI: defaults, TOML file, environment
// overrides in both spellings, and one clear line for every reason start-up must fail.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, readFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { BUN, ROOT, freePort, run, startMoat } from "../harness/moat.ts";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "moat-cfg-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function serveFails(dataDir: string, env: Record<string, string>, extraArgs: string[] = []) {
  const r = await run([BUN, join(ROOT, "src/main.ts"), "serve", "--data-dir", dataDir, ...extraArgs], {
    env: {
      FTLCONF_webserver_port: `127.0.0.1:${await freePort()}`,
      FTLCONF_dns_port: String(await freePort()),
      ...env,
    },
  });
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trim().split("\n");
  return lines[lines.length - 1]!;
}

test("a bad environment value stops start-up with one line naming the key", async () => {
  const line = await serveFails(tmp(), { FTLCONF_webserver_session_timeout: "soon" });
  // the variable names the key once; an enum lists the values it takes
  expect(line).toBe("moat: invalid value in FTLCONF_webserver_session_timeout: not of type unsigned integer");
  const line2 = await serveFails(tmp(), { MOAT_DNS_BLOCKING_MODE: "LOUD" });
  expect(line2).toBe(
    "moat: invalid value in MOAT_DNS_BLOCKING_MODE: invalid option; valid values: NULL, IP_NODATA_AAAA, IP, NX, NODATA",
  );
  const line3 = await serveFails(tmp(), { FTLCONF_dns_upstreams: "1.2.3.4;not a server" });
  expect(line3).toBe("moat: invalid value in FTLCONF_dns_upstreams: [1]: not a valid upstream (expected IP[#port])");
});

test("a bad value in the TOML file and broken TOML each give one clear line", async () => {
  const d = tmp();
  writeFileSync(join(d, "pihole.toml"), "[dns]\nport = 70000\n");
  // the file, the line and the key once, with the reason
  expect(await serveFails(d, {})).toBe(`moat: ${join(d, "pihole.toml")}, line 2: dns.port: must be at most 65535`);
  writeFileSync(join(d, "pihole.toml"), '[dns]\nport = 1\n[dns.blocking]\nmode = "LOUD"\n');
  expect(await serveFails(d, {})).toBe(
    `moat: ${join(d, "pihole.toml")}, line 4: dns.blocking.mode: invalid option; valid values: NULL, IP_NODATA_AAAA, IP, NX, NODATA`,
  );
  writeFileSync(join(d, "pihole.toml"), "[dns]\nport = 1\nblockTTL = = 2\n");
  expect(await serveFails(d, {})).toMatch(/pihole\.toml, line 3: not valid TOML: /);
});

test("a taken HTTP port is one clear line, not a stack trace", async () => {
  const port = await freePort();
  const blocker = createServer().listen(port, "127.0.0.1");
  await new Promise((r) => blocker.once("listening", r));
  try {
    const line = await serveFails(tmp(), { FTLCONF_webserver_port: `127.0.0.1:${port}` });
    expect(line).toMatch(new RegExp(`^moat: cannot listen for HTTP on 127\\.0\\.0\\.1:${port}`));
  } finally {
    blocker.close();
  }
});

test("a corrupt gravity database and a read-only one are refused clearly", async () => {
  const d = tmp();
  writeFileSync(
    join(d, "gravity.db"),
    "this is not sqlite at all, just text that is long enough to look like a header".repeat(100),
  );
  expect(await serveFails(d, {})).toMatch(/^moat: gravity database .* is corrupt or not an SQLite database/);
  if (process.getuid?.() !== 0) {
    const d2 = tmp();
    const m = await startMoat({ dataDir: d2 });
    await m.stop();
    chmodSync(join(d2, "gravity.db"), 0o444);
    expect(await serveFails(d2, {})).toContain("not writable");
  }
});

test("a gravity database newer than this build is refused", async () => {
  const d = tmp();
  const m = await startMoat({ dataDir: d });
  await m.stop();
  const { Database } = await import("bun:sqlite");
  const db = new Database(join(d, "gravity.db"));
  db.run("UPDATE info SET value = '99' WHERE property = 'version'");
  db.close();
  expect(await serveFails(d, {})).toContain("newer than this Moat understands");
});

test("file values apply, environment wins over the file, and the file keeps API-independent values", async () => {
  const d = tmp();
  const m = await startMoat({
    dataDir: d,
    configToml: '[webserver.api]\nprettyJSON = true\n[dns]\nupstreams = ["9.9.9.9"]\n',
  });
  try {
    const text = await (await m.api("/api/info/login")).text();
    expect(text).toContain('\n  "dns"'); // prettyJSON from the file
    expect(readFileSync(join(d, "pihole.toml"), "utf8")).toContain("prettyJSON = true");
  } finally {
    await m.dispose();
  }
  const m2 = await startMoat({ dataDir: d, env: { MOAT_WEBSERVER_API_PRETTYJSON: "false" } });
  try {
    expect(await (await m2.api("/api/info/login")).text()).not.toContain("\n");
  } finally {
    await m2.dispose();
  }
});

test("moat password sets a hash from stdin and the API then needs it", async () => {
  const d = tmp();
  const r = await run([BUN, join(ROOT, "src/main.ts"), "password", "--data-dir", d], { stdin: "s3cret\n" });
  expect(r.code).toBe(0);
  const toml = readFileSync(join(d, "pihole.toml"), "utf8");
  expect(toml).toMatch(/pwhash = "\S+"/);
  expect(toml).not.toContain("s3cret");
  const m = await startMoat({ dataDir: d });
  try {
    const res = await m.api("/api/dns/blocking");
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.key).toBe("unauthorized");
  } finally {
    await m.dispose();
  }
});

test("unknown options and commands exit non-zero with usage", async () => {
  const r = await run([BUN, join(ROOT, "src/main.ts"), "serve", "--bogus"]);
  expect(r.code).toBe(1);
  expect(r.stderr.trim()).toBe("moat: unknown option --bogus");
  const r2 = await run([BUN, join(ROOT, "src/main.ts"), "frobnicate"]);
  expect(r2.code).toBe(2);
});

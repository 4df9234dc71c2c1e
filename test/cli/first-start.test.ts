// What a first start runs into, through the real CLI: each problem is one sentence that says what to
// do (no system error codes), and nothing claims to listen before every listener is up.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, freePort, run } from "../harness/moat.ts";

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "moat-first-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MAIN = join(ROOT, "src/main.ts");
const isRoot = process.getuid?.() === 0;
/** The command as the unprivileged user nobody (the tests run as root in CI). */
const asNobody = (cmd: string[]) => (isRoot ? ["runuser", "-u", "nobody", "--", ...cmd] : cmd);
/** nobody can run Moat from this checkout (not so when it lives under a private home directory). */
const nobodyRuns =
  isRoot &&
  Bun.which("runuser") !== null &&
  Bun.spawnSync(asNobody([BUN, "-e", `require("fs").readFileSync(${JSON.stringify(MAIN)})`]), {
    stdout: "ignore",
    stderr: "ignore",
  }).exitCode === 0;

async function fails(cmd: string[], env: Record<string, string> = {}) {
  const r = await run(cmd, {
    env: {
      FTLCONF_webserver_port: `127.0.0.1:${await freePort()}`,
      FTLCONF_dns_port: String(await freePort()),
      ...env,
    },
  });
  expect(r.code).toBe(1);
  // one line, a sentence: no errno names, no stack
  expect(
    r.stderr
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("moat:")),
  ).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\b(EACCES|EEXIST|ENOENT|EADDRINUSE|ENOTDIR)\b|\n\s+at /);
  expect(r.stdout).not.toContain("listening");
  return r.stderr.trim().split("\n").pop()!;
}

test("a data directory that cannot be made or used is a sentence with the way out", async () => {
  const d = tmp();
  writeFileSync(join(d, "file"), "");
  expect(await fails([BUN, MAIN, "serve", "--data-dir", join(d, "file")])).toBe(
    `moat: the data directory ${join(d, "file")} is a file, not a directory; pick another with --data-dir DIR`,
  );
  const deep = join(d, "no", "such", "dir");
  expect(await fails([BUN, MAIN, "password", "x", "--data-dir", deep])).toBe(
    `moat: cannot create the data directory ${deep}: ${join(d, "no", "such")} does not exist (create it first, or pick another with --data-dir DIR)`,
  );
  expect(existsSync(join(d, "no"))).toBe(false);
});

test.skipIf(!nobodyRuns)(
  "a normal user whose data directory is root's is told to use --dev or --data-dir",
  async () => {
    const d = tmp();
    chmodSync(d, 0o755);
    const line = await fails(asNobody([BUN, MAIN, "serve", "--data-dir", join(d, "etc-moat")]));
    expect(line).toBe(
      `moat: cannot create the data directory ${join(d, "etc-moat")}: nobody may not write to ${d}; run as root (the appliance's default), or use --dev (data in ./.moat-data) or --data-dir DIR`,
    );
    mkdirSync(join(d, "mine"));
    expect(await fails(asNobody([BUN, MAIN, "serve", "--data-dir", join(d, "mine")]))).toContain(
      `the data directory ${join(d, "mine")} is not writable by nobody; run as root`,
    );
  },
);

test.skipIf(!nobodyRuns)("port 53 without root says what to do, and no listener line comes before it", async () => {
  const d = tmp();
  chmodSync(d, 0o777);
  const line = await fails(asNobody([BUN, MAIN, "serve", "--data-dir", join(d, "data")]), { FTLCONF_dns_port: "53" });
  expect(line).toBe(
    "moat: cannot listen for DNS on port 53: ports below 1024 need root (or CAP_NET_BIND_SERVICE); run as root, or use --dev (DNS on 1053, HTTP on 8080), or choose another port with dns.port",
  );
});

test("a taken HTTP port or DNS port is one sentence, and DNS does not claim to listen first", async () => {
  const http = await freePort();
  const blocker = Bun.listen({ hostname: "127.0.0.1", port: http, socket: { data() {} } });
  try {
    const line = await fails([BUN, MAIN, "serve", "--data-dir", tmp()], {
      FTLCONF_webserver_port: `127.0.0.1:${http}`,
    });
    expect(line).toBe(
      `moat: cannot listen for HTTP on 127.0.0.1:${http}: another program already uses port ${http}; stop it, or choose another port with webserver.port`,
    );
  } finally {
    blocker.stop(true);
  }
  const dns = await freePort();
  const udp = await Bun.udpSocket({ hostname: "0.0.0.0", port: dns });
  try {
    const line = await fails([BUN, MAIN, "serve", "--data-dir", tmp()], { FTLCONF_dns_port: String(dns) });
    expect(line).toBe(
      `moat: cannot listen for DNS on port ${dns}: another program already uses port ${dns}; stop it, or choose another port with dns.port`,
    );
  } finally {
    udp.close();
  }
});

test("--config FILE that does not exist is refused unless --init", async () => {
  const d = tmp();
  const file = join(d, "typo.toml");
  expect(await fails([BUN, MAIN, "password", "x", "--data-dir", d, "--config", file])).toBe(
    `moat: the config file ${file} does not exist; check the path, or add --init to start with a new one there`,
  );
  expect(existsSync(file)).toBe(false);
  const ok = await run([BUN, MAIN, "password", "x", "--data-dir", d, "--config", file, "--init"]);
  expect(ok.code).toBe(0);
  expect(existsSync(file)).toBe(true);
  // once it exists, --init is not needed
  expect((await run([BUN, MAIN, "password", "y", "--data-dir", d, "--config", file])).code).toBe(0);
});

test("the development profile (npm start) listens for DNS on 1053, not mDNS's 5353, and keeps data in ./.moat-data", async () => {
  const cwd = tmp();
  const httpPort = await freePort();
  const proc = Bun.spawn([BUN, MAIN, "serve", "--dev"], {
    cwd,
    env: { ...(process.env as Record<string, string>), FTLCONF_webserver_port: `127.0.0.1:${httpPort}` },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    let out = "";
    const reader = proc.stdout.getReader();
    const deadline = Date.now() + 20000;
    while (!out.includes("API listening") && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)]);
      if (!chunk || chunk.done) break;
      out += new TextDecoder().decode(chunk.value);
    }
    reader.releaseLock();
    expect(out).toContain("moat: DNS listening on udp [::]:1053/tcp [::]:1053");
    const dig = await run(["dig", "@127.0.0.1", "-p", "1053", "+short", "+time=5", "+tries=1", "pi.hole", "A"]);
    expect(dig.stdout.trim()).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(existsSync(join(cwd, ".moat-data", "gravity.db"))).toBe(true);
    // NTP's port 123 needs root: the development profile leaves it off rather than warn at every start
    const ntp = (await (await fetch(`http://127.0.0.1:${httpPort}/api/config/ntp`)).json()) as {
      config: { ntp: { ipv4: { active: boolean }; ipv6: { active: boolean } } };
    };
    expect([ntp.config.ntp.ipv4.active, ntp.config.ntp.ipv6.active]).toEqual([false, false]);
  } finally {
    proc.kill();
    await proc.exited;
  }
});

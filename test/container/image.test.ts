// The container image (scripts/build-container.sh) built and run as a person runs Pi-hole's: one volume
// at /etc/pihole, FTLCONF_* variables, WEBPASSWORD_FILE, host networking. Checked from outside as a
// client would: DNS over UDP and TCP, the API over HTTP, the processes' user and priority, podman's own records.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import { join } from "node:path";
import { hashPassword } from "../../src/auth/password.ts";
import { piholeGravityDb, piholeToml } from "../config/pihole-backup.ts";
import { ARCHIVE, IMAGE, Podman, buildImage, canRunContainers, run } from "./podman.ts";

const BUILD_MS = 600_000;
const MiB = 1024 * 1024;

function tarJson<T>(member: string): T {
  const r = run(["tar", "-xOf", ARCHIVE, member]);
  if (r.code !== 0) throw new Error(`${member} is not in ${ARCHIVE}: ${r.err}`);
  return JSON.parse(r.out) as T;
}
interface Desc {
  digest: string;
  size: number;
  mediaType: string;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}
const blob = <T>(d: Desc) => tarJson<T>(`blobs/sha256/${d.digest.slice(7)}`);

describe.skipIf(!canRunContainers())("the container image", () => {
  let pm: Podman;

  beforeAll(async () => {
    await buildImage();
    pm = new Podman();
    pm.must(["load", "-q", "-i", ARCHIVE]);
  }, BUILD_MS);
  afterAll(() => pm?.dispose());

  test("one archive: linux/amd64 and linux/arm64 under one nested index, each at most 60 MiB compressed", () => {
    const index = tarJson<{ manifests: Desc[] }>("index.json");
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]!.mediaType).toBe("application/vnd.oci.image.index.v1+json");
    const nested = blob<{ manifests: Desc[] }>(index.manifests[0]!);
    expect(nested.manifests.map((m) => `${m.platform?.os}/${m.platform?.architecture}`).sort()).toEqual([
      "linux/amd64",
      "linux/arm64",
    ]);
    for (const m of nested.manifests) {
      const manifest = blob<{ config: Desc; layers: Desc[] }>(m);
      const size = manifest.layers.reduce((n, l) => n + l.size, 0);
      expect(size).toBeLessThanOrEqual(60 * MiB);
      const config = blob<{ config: { User: string; Healthcheck: { Test: string[] }; Volumes: object } }>(
        manifest.config,
      );
      expect(config.config.User).toBe("1000:1000");
      expect(config.config.Healthcheck.Test).toEqual(["CMD", "/usr/bin/moat", "healthcheck"]);
      expect(Object.keys(config.config.Volumes)).toEqual(["/etc/pihole"]);
    }
  });

  // a read-only root with podman's tmpfs on /tmp and /run: a write anywhere else fails the start
  const start = (name: string, args: string[]) =>
    pm.must(["run", "-d", "--name", name, "--read-only", "--network", "host", ...args, IMAGE]).trim();

  test("DNS, login and a deny entry; not root; healthy; SIGTERM; nothing written outside the volume; all kept in a new container without the password", async () => {
    start("first", [
      "-v",
      "data:/etc/pihole",
      "-e",
      "FTLCONF_webserver_api_password=correct horse",
      "-e",
      "FTLCONF_dns_hosts=192.168.1.10 nas.lan;192.168.1.11 printer.lan",
      "-e",
      "TZ=Europe/Berlin",
      // as Pi-hole's compose file spells it
      "-e",
      "FTLCONF_dns_listeningMode=all",
    ]);
    expect(await pm.waitForDns("nas.lan")).toBe("192.168.1.10");
    // FTLCONF_ arrays take ';' between items; TCP answers as UDP does
    expect(pm.dig("printer.lan", "tcp")).toBe("192.168.1.11");

    const pid = pm.must(["inspect", "--format", "{{.State.Pid}}", "first"]).trim();
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    expect(status).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
    expect(readFileSync(`/proc/${pid}/environ`, "utf8")).toContain("TZ=Europe/Berlin");
    // TZ names a zone the image holds
    const zone = join(pm.dir, "zone");
    pm.must(["cp", "first:/usr/share/zoneinfo/Europe/Berlin", zone]);
    expect(readFileSync(zone).subarray(0, 4).toString()).toBe("TZif");

    const health = pm.podman(["exec", "first", "moat", "healthcheck"]);
    expect(health.code).toBe(0);
    expect(health.out).toContain("healthy");

    expect(pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "wrong" } }).status).toBe(401);
    const login = pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "correct horse" } });
    expect(login.status).toBe(200);
    const sid = (JSON.parse(login.body) as { session: { sid: string } }).session.sid;
    const add = pm.curl("http://127.0.0.1/api/domains/deny/exact", {
      method: "POST",
      body: { domain: "ads.example" },
      sid,
    });
    expect(add.status).toBe(201);
    expect(await pm.waitForDns("ads.example")).toBe("0.0.0.0");
    expect(pm.curl("https://127.0.0.1/api/info/login").status).toBe(200);

    const t0 = Date.now();
    pm.must(["stop", "-t", "10", "first"]);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(pm.must(["inspect", "--format", "{{.State.ExitCode}}", "first"]).trim()).toBe("0");
    expect(pm.must(["logs", "first"]) + pm.podman(["logs", "first"]).err).toContain("SIGTERM, stopping");
    const changed = pm
      .must(["diff", "first"])
      .split("\n")
      .map((l) => l.slice(2))
      .filter((p) => p && p !== "/etc" && !/^\/(etc\/pihole|tmp|run)(\/|$)/.test(p));
    expect(changed).toEqual([]);

    start("second", ["-v", "data:/etc/pihole"]);
    expect(await pm.waitForDns("ads.example")).toBe("0.0.0.0");
    expect(pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "nope" } }).status).toBe(401);
    const again = pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "correct horse" } });
    expect(again.status).toBe(200);
    // the first container's queries were written before it exited: the query log still has them
    const sid2 = (JSON.parse(again.body) as { session: { sid: string } }).session.sid;
    const log = pm.curl("http://127.0.0.1/api/queries?domain=printer.lan&length=10", { sid: sid2 });
    expect(log.status).toBe(200);
    expect((JSON.parse(log.body) as { queries: { domain: string }[] }).queries.map((q) => q.domain)).toContain(
      "printer.lan",
    );
    pm.must(["rm", "-f", "-t", "0", "second"]);
  }, 120_000);

  // misc.nice's -10 needs a nice limit the unprivileged user lacks without `--ulimit nice=` (README "The
  // container", "Priority"). The case with it cannot run here: this machine's root lacks CAP_SYS_RESOURCE, so
  // runc's setrlimit(RLIMIT_NICE) above the hard limit of 0 fails and the container does not start.
  test("without --ulimit nice=: one warning that names it, the main thread keeps its niceness, DNS answers; misc.nice -999 does not try", async () => {
    const niceOf = (name: string) => {
      const pid = pm.must(["inspect", "--format", "{{.State.Pid}}", name]).trim();
      const st = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
      return Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[16]); // field 19
    };
    const logs = (name: string) => pm.must(["logs", name]) + pm.podman(["logs", name]).err;

    start("no-nice-limit", ["-v", "nice-data:/etc/pihole"]);
    expect(await pm.waitForDns("localhost")).toBe("127.0.0.1");
    const warnings = logs("no-nice-limit")
      .split("\n")
      .filter((l) => l.includes("(misc.nice)"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("Cannot set the process priority to -10 (misc.nice): not permitted");
    expect(warnings[0]).toContain("Docker's --ulimit nice=");
    expect(niceOf("no-nice-limit")).toBe(getPriority());
    pm.must(["rm", "-f", "-t", "0", "no-nice-limit"]);

    start("nice-unchanged", ["-v", "nice-data:/etc/pihole", "-e", "FTLCONF_misc_nice=-999"]);
    expect(await pm.waitForDns("localhost")).toBe("127.0.0.1");
    expect(logs("nice-unchanged")).not.toContain("(misc.nice)");
    expect(niceOf("nice-unchanged")).toBe(getPriority());
    pm.must(["rm", "-f", "-t", "0", "nice-unchanged"]);
  }, 60_000);

  test("an existing Pi-hole v6 /etc/pihole opens as it is: its lists, local records and password", async () => {
    const dir = join(pm.dir, "etc-pihole");
    mkdirSync(dir);
    writeFileSync(join(dir, "pihole.toml"), piholeToml(hashPassword("pi-hole password")));
    writeFileSync(join(dir, "gravity.db"), piholeGravityDb());
    // Pi-hole's image gives the directory to its pihole user, uid and gid 1000
    run(["chown", "-R", "1000:1000", dir]);
    start("from-pihole", ["-v", `${dir}:/etc/pihole`]);
    expect(await pm.waitForDns("nas.lan")).toBe("192.168.1.10");
    // Pi-hole's deny entry and gravity list, answered in its blocking mode (NX)
    expect(pm.rcode("denied.example")).toBe("NXDOMAIN");
    expect(pm.rcode("ads.example")).toBe("NXDOMAIN");
    const login = pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "pi-hole password" } });
    expect(login.status).toBe(200);
    pm.must(["rm", "-f", "-t", "0", "from-pihole"]);
  }, 60_000);

  test("a bind-mounted directory the container's user may not write: one sentence that says what to do", () => {
    const dir = join(pm.dir, "root-owned");
    mkdirSync(dir, { mode: 0o755 });
    const r = pm.podman(["run", "--name", "root-owned", "--network", "host", "-v", `${dir}:/etc/pihole`, IMAGE]);
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain(
      "moat: the data directory /etc/pihole is not writable by uid 1000; Moat runs as uid 1000 in its container: give the volume to it on the host (chown -R 1000:1000 DIR for a bind mount)",
    );
    pm.must(["rm", "-f", "root-owned"]);
  }, 60_000);

  test("WEBPASSWORD_FILE: a secret's name under /run/secrets holds the password", async () => {
    const file = join(pm.dir, "moat-password");
    writeFileSync(file, "from a file\n");
    chmodSync(file, 0o644);
    start("secret", [
      "-v",
      "secret-data:/etc/pihole",
      "-v",
      `${file}:/run/secrets/moat_pw:ro`,
      "-e",
      "WEBPASSWORD_FILE=moat_pw",
    ]);
    expect(await pm.waitForDns("localhost")).toBe("127.0.0.1");
    expect(pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "from a file" } }).status).toBe(
      200,
    );
    expect(pm.curl("http://127.0.0.1/api/auth", { method: "POST", body: { password: "" } }).status).toBe(401);
    pm.must(["rm", "-f", "-t", "0", "secret"]);
  }, 60_000);

  test("no variables at all: the dashboard's first-run setup (no password yet), over HTTP and HTTPS", async () => {
    start("bare", ["-v", "bare-data:/etc/pihole"]);
    expect(await pm.waitForDns("localhost")).toBe("127.0.0.1");
    const admin = pm.curl("http://127.0.0.1/admin/");
    expect(admin.status).toBe(200);
    expect(admin.body).toContain("<html");
    // the dashboard shows its setup while the session is open without a password (src/web/ui/pages/setup.tsx)
    const auth = JSON.parse(pm.curl("http://127.0.0.1/api/auth").body) as { session: { valid: boolean } };
    expect(auth.session.valid).toBe(true);
    expect(pm.curl("https://127.0.0.1/admin/").status).toBe(200);
    pm.must(["rm", "-f", "-t", "0", "bare"]);
  }, 60_000);
});

// POST /api/action/migrate on a running Moat (a dry run changes nothing; the real run is in force at
// once; a second one is refused without a mode; --merge adds), and the command's refusals: a malformed
// source or a target with data leaves the target as it was, byte for byte.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { adguardInstall } from "./adguard-fixtures.ts";
import { piholeV5Archive, piholeV5Dir, piholeV6Dir, removeScratch, scratch } from "./fixtures.ts";
import { answer, moatCli } from "./helpers.ts";

let up: Upstream;
let corp: Upstream;
beforeAll(async () => {
  [up, corp] = await Promise.all([startUpstream({ addr: "192.0.2.1" }), startUpstream({ addr: "192.0.2.2" })]);
});
afterAll(async () => {
  await Promise.all([up.stop(), corp.stop()]);
  removeScratch();
});

async function post(moat: MoatProcess, file: string, fields: Record<string, string> = {}, sid?: string) {
  const form = new FormData();
  form.append("file", new Blob([readFileSync(file)]), "upload");
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const r = await moat.api("/api/action/migrate", { method: "POST", body: form, headers: sid ? { sid } : {} });
  return { status: r.status, body: (await r.json()) as any };
}

describe("POST /api/action/migrate", () => {
  let moat: MoatProcess;
  beforeAll(async () => {
    moat = await startMoat({ env: { FTLCONF_dns_upstreams: up.address } });
  });
  afterAll(async () => {
    await moat.dispose();
  });

  test("a file that is neither an archive nor AdGuard Home's configuration is refused in the error envelope", async () => {
    const dir = scratch("bad");
    writeFileSync(join(dir, "x.yaml"), "just: [text");
    const bad = await post(moat, join(dir, "x.yaml"));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("is not valid YAML");
    writeFileSync(join(dir, "y.zip"), new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]));
    const zip = await post(moat, join(dir, "y.zip"));
    expect(zip.status).toBe(400);
    expect(zip.body.error.message).toContain("is not a readable archive");
  });

  test("a path on this machine instead of an upload: a Pi-hole directory is read in place; a missing one is refused", async () => {
    const form = (fields: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      return moat.api("/api/action/migrate", { method: "POST", body: f });
    };
    const dir = piholeV6Dir(up.address, corp.address);
    const dry = await form({ path: dir, dryRun: "true" });
    expect(dry.status).toBe(200);
    const report = (await dry.json()) as { source: string; applied: boolean; carried: string[] };
    expect(report.applied).toBe(false);
    expect(report.source).toContain(dir);
    expect(report.carried).toContain("3 deny entries");
    for (const [path, words] of [
      ["/nowhere/pihole", "Nothing at /nowhere/pihole"],
      ["relative/pihole", "Not an absolute path"],
    ]) {
      const r = await form({ path: path!, dryRun: "true" });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { message: string } }).error.message).toContain(words!);
    }
    expect(existsSync(dir)).toBe(true);
  });

  test("a dry run reports and changes nothing; the run is in force at once; a second is refused without a mode; merge adds", async () => {
    const archive = piholeV5Archive(up.address, corp.address);
    const dry = await post(moat, archive, { dryRun: "true" });
    expect(dry.status).toBe(200);
    expect(dry.body.applied).toBe(false);
    expect(dry.body.mode).toBe("new");
    expect(dry.body.carried).toContain("3 deny entries");
    expect(await answer(moat, "denied.example")).toBe("192.0.2.1");

    const run = await post(moat, archive);
    expect(run.status).toBe(200);
    expect(run.body.applied).toBe(true);
    expect(run.body.notCarried).toContainEqual({
      item: "setupVars.conf SOMETHING_ELSE",
      why: "Moat has no such setting",
    });
    // the running server took in the lists, the groups and the settings
    expect(await answer(moat, "denied.example")).toBe("0.0.0.0");
    expect(await answer(moat, "kids-only.example", "127.0.0.2")).toBe("0.0.0.0");
    expect(await answer(moat, "kids-only.example", "127.0.0.3")).toBe("192.0.2.1");
    expect(await answer(moat, "nas.lan")).toBe("192.168.1.10");

    // the v5 password came along: log in with it for the rest
    const auth = await moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: "v5-secret" }) });
    const sid = ((await auth.json()) as { session: { sid: string } }).session.sid;
    const again = await post(moat, archive, {}, sid);
    expect(again.status).toBe(400);
    expect(again.body.error.key).toBe("bad_request");
    expect(again.body.error.message).toContain("already has data");
    const form = new FormData();
    form.append("file", new Blob([readFileSync(adguardInstall(34, up.address, corp.address))]), "AdGuardHome.yaml");
    form.append("mode", "merge");
    const merged = await moat.api("/api/action/migrate", { method: "POST", body: form, headers: { sid } });
    const body = (await merged.json()) as any;
    expect(merged.status).toBe(200);
    expect(body.mode).toBe("merge");
    // an upload has no data/ beside it
    expect(body.notCarried.map((n: { item: string }) => n.item)).toContain("DHCP static leases and the query log");
    expect(existsSync(body.backup)).toBe(true);
    // both installs' entries hold: the Pi-hole one and AdGuard's
    expect(await answer(moat, "denied.example")).toBe("0.0.0.0");
    expect(await answer(moat, "hosts-blocked.example")).toBe("0.0.0.0");
    expect(await answer(moat, "kids-only.example", "127.0.0.2")).toBe("0.0.0.0");
  }, 90_000);
});

describe("moat migrate refuses and leaves the target as it was", () => {
  const files = (dir: string) =>
    Object.fromEntries(
      readdirSync(dir)
        .filter((f) => !f.startsWith("."))
        .map((f) => [f, readFileSync(join(dir, f)).toString("base64")]),
    );

  test("a target with data without --merge or --replace, and a damaged source even with --replace", async () => {
    const target = scratch("target");
    const first = await moatCli("migrate", "pihole", piholeV6Dir(up.address, corp.address), "--data-dir", target);
    expect(first.code).toBe(0);
    const before = files(target);

    const refused = await moatCli("migrate", "pihole", piholeV5Dir(up.address, corp.address), "--data-dir", target);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("already has data: give --merge to add to it, or --replace");
    expect(files(target)).toEqual(before);

    const damaged = piholeV5Dir(up.address, corp.address);
    writeFileSync(join(damaged, "gravity.db"), "not a database at all, but long enough to be read as one ".repeat(100));
    const bad = await moatCli("migrate", "pihole", damaged, "--data-dir", target, "--replace");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("gravity.db: ");
    expect(bad.stderr).toContain("nothing was changed");
    expect(files(target)).toEqual(before);

    const unknown = adguardInstall(34, up.address, corp.address);
    writeFileSync(unknown, readFileSync(unknown, "utf8").replace("schema_version: 34", "schema_version: 99"));
    const newer = await moatCli("migrate", "adguardhome", unknown, "--data-dir", target, "--replace");
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain("unknown AdGuard Home schema version 99");
    expect(files(target)).toEqual(before);

    // --replace: backed up first, then the lists are the new install's alone
    const replaced = await moatCli(
      "migrate",
      "adguardhome",
      adguardInstall(34, up.address, corp.address),
      "--data-dir",
      target,
      "--replace",
    );
    expect(replaced.code).toBe(0);
    // data/leases.json beside the file is read; the query log only when asked
    expect(replaced.stdout).toContain("carried: 1 DHCP static lease");
    expect(replaced.stdout).toContain("not carried: query log (data/querylog.json): not asked for (--with-history)");
    const backup = /backup of the target before the change: (\S+)/.exec(replaced.stdout)?.[1];
    expect(backup && existsSync(backup)).toBe(true);
    const moat = await startMoat({ dataDir: target });
    try {
      expect(await answer(moat, "hosts-blocked.example")).toBe("0.0.0.0");
      expect(await answer(moat, "kids-only.example", "127.0.0.2")).toBe("192.0.2.1");
    } finally {
      await moat.stop();
      rmSync(target, { recursive: true, force: true });
    }
  }, 90_000);
});

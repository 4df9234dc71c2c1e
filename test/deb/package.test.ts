// The Debian package (scripts/build-deb.sh) installed with dpkg into a clean Debian system (system.ts):
// its user and /etc/moat, a unit systemd accepts, Moat started as that unit says answering DNS and the API;
// an upgrade and a remove keep the settings and the data, a purge removes them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { DEB_ARCH, debPackage, TestSystem } from "./system.ts";

let sys: TestSystem;
let deb: string;
beforeAll(async () => {
  deb = await debPackage();
  sys = await TestSystem.create("deb");
}, 900_000);
afterAll(async () => {
  await sys?.destroy();
});

const quiet = (r: { code: number; stderr: string }) => ({ code: r.code, said: r.stderr.split("\n").filter(Boolean) });
const api = (path: string, ...curl: string[]) => sys.inNs(["curl", "-s", ...curl, `http://127.0.0.1${path}`]);
const dig = async (name: string) =>
  (await sys.inNs(["dig", "+short", "+time=2", "+tries=1", "@127.0.0.1", name, "A"])).stdout.trim();

test("the package holds the binary, the image's unit as it is, and what lintian asks for", async () => {
  const info = await run(["dpkg-deb", "--field", deb, "Package", "Version", "Architecture"]);
  expect(info.stdout).toContain(`Architecture: ${DEB_ARCH}`);
  const files = (await run(["dpkg-deb", "--contents", deb])).stdout;
  for (const f of [
    "./usr/bin/moat",
    "./usr/lib/systemd/system/moat.service",
    "./usr/share/doc/moat/copyright",
    "./usr/share/doc/moat/changelog.gz",
    "./usr/share/lintian/overrides/moat",
  ])
    expect(files).toContain(f);
  const unit = (
    await run(["sh", "-c", `dpkg-deb --fsys-tarfile '${deb}' | tar -xO ./usr/lib/systemd/system/moat.service`])
  ).stdout;
  expect(unit).toBe(readFileSync(join(ROOT, "image/rootfs/etc/systemd/system/moat.service"), "utf8"));
}, 120_000);

test("dpkg installs it into a clean Debian; the unit verifies; Moat runs as the unit says and answers DNS and the API", async () => {
  copyFileSync(deb, join(sys.root, "tmp/moat.deb"));
  const inst = await sys.exec(["dpkg", "-i", "/tmp/moat.deb"]);
  // deb-systemd-helper tells of the link it makes; nothing else may be said
  const said = inst.stderr.split("\n").filter((l) => l && !l.startsWith("Created symlink"));
  expect({ code: inst.code, said }).toEqual({ code: 0, said: [] });
  const passwd = readFileSync(join(sys.root, "etc/passwd"), "utf8");
  expect(passwd).toMatch(/^moat:x:\d+:\d+:Moat DNS filter:\/etc\/moat:\/usr\/sbin\/nologin$/m);
  const st = statSync(join(sys.root, "etc/moat"));
  expect((st.mode & 0o777).toString(8)).toBe("750");
  // enabled as a first install is: the link systemd follows at boot
  expect(readlinkSync(join(sys.root, "etc/systemd/system/multi-user.target.wants/moat.service"))).toBe(
    "/usr/lib/systemd/system/moat.service",
  );
  // the installer for downloaded binaries leaves a packaged Moat to apt
  const twice = await sys.exec(["moat", "service", "install"]);
  expect({ code: twice.code, err: twice.stderr }).toEqual({
    code: 1,
    err: "moat: Moat is installed from its Debian package here: apt upgrades and removes it (apt remove moat)\n",
  });
  expect((await sys.exec(["moat", "service", "status"])).stdout).toContain(
    "installed: /usr/lib/systemd/system/moat.service by the Debian package, runs /usr/bin/moat\n",
  );
  const verify = await sys.exec(["systemd-analyze", "verify", "/usr/lib/systemd/system/moat.service"]);
  expect({
    code: verify.code,
    err: verify.stderr.split("\n").filter((l) => l && !l.includes("moat-firstboot")),
  }).toEqual({ code: 0, err: [] });

  await sys.startUnit("usr/lib/systemd/system/moat.service");
  const add = await api(
    "/api/domains/deny/exact",
    "-X",
    "POST",
    "--data",
    '{"domain":"ads.example"}',
    "-o",
    "/dev/null",
    "-w",
    "%{http_code}",
  );
  expect(add.stdout).toBe("201");
  expect(await dig("ads.example")).toBe("0.0.0.0");
  // the data directory is the unit's, written by its user
  const owner = await sys.exec(["stat", "-c", "%U", "/etc/moat/gravity.db"]);
  expect(owner.stdout.trim()).toBe("moat");
  await sys.stopUnit();
}, 120_000);

test("an upgrade keeps the settings and data; remove keeps them; purge removes them", async () => {
  const config = () => readFileSync(join(sys.root, "etc/moat/pihole.toml"), "utf8");
  const before = config();
  // the next version: the same package with a higher version number
  const next = await sys.exec([
    "sh",
    "-c",
    "dpkg-deb -R /tmp/moat.deb /tmp/next && sed -i 's/^Version: .*/&.1/' /tmp/next/DEBIAN/control && dpkg-deb -Znone -b /tmp/next /tmp/moat-next.deb >/dev/null && rm -r /tmp/next",
  ]);
  expect(next.code).toBe(0);
  const up = await sys.exec(["dpkg", "-i", "/tmp/moat-next.deb"]);
  expect(quiet(up)).toEqual({ code: 0, said: [] });
  expect((await sys.exec(["dpkg-query", "-W", "moat"])).stdout.trim()).toMatch(/^moat\t.*\.1$/);
  expect(config()).toBe(before);
  await sys.startUnit("usr/lib/systemd/system/moat.service");
  expect(await dig("ads.example")).toBe("0.0.0.0");
  await sys.stopUnit();

  const rm = await sys.exec(["dpkg", "-r", "moat"]);
  expect(rm.code).toBe(0);
  expect(existsSync(join(sys.root, "usr/bin/moat"))).toBe(false);
  expect(config()).toBe(before);
  expect(existsSync(join(sys.root, "etc/moat/gravity.db"))).toBe(true);

  const purge = await sys.exec(["dpkg", "-P", "moat"]);
  expect(purge.code).toBe(0);
  expect(existsSync(join(sys.root, "etc/moat"))).toBe(false);
}, 120_000);

test("with systemd running and port 53 held by a stub listener on 127.0.0.53, postinst names it, offers the remedy and does not start", async () => {
  // postinst asks systemd to start Moat only where systemd runs: the directory systemd makes at boot says so
  mkdirSync(join(sys.root, "run/systemd/system"), { recursive: true });
  const holder = Bun.spawn(
    [
      "ip",
      "netns",
      "exec",
      sys.ns,
      process.execPath,
      "-e",
      "await Bun.udpSocket({ hostname: '127.0.0.53', port: 53 }); console.log('bound'); setTimeout(() => {}, 60000);",
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  try {
    const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("bound");
    const name = readFileSync(`/proc/${holder.pid}/comm`, "utf8").trim();
    const inst = await sys.exec(["dpkg", "-i", "/tmp/moat.deb"]);
    expect(inst.code).toBe(0);
    expect(inst.stderr).toContain(`  53/udp on 127.0.0.53: ${name} (pid ${holder.pid})\n`);
    expect(inst.stderr).toContain(
      "systemd-resolved's stub listener is one of them: `sudo moat service resolved-stub off`",
    );
    expect(inst.stderr).toContain(
      "Moat is installed and enabled but not started; once the ports are free: sudo systemctl start moat",
    );
    expect(inst.stdout).not.toContain("Moat is running");
  } finally {
    holder.kill();
    await holder.exited;
    rmSync(join(sys.root, "run/systemd"), { recursive: true, force: true });
  }
}, 60_000);

// `moat service install | status | uninstall` with the downloaded binary on a clean Debian system without
// the package (system.ts): the port check names what holds a port, a 32-bit ARM system is refused in one
// line, and the installed unit, started as it says, answers DNS and the API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { debPackage, TestSystem } from "./system.ts";

const BINARY = "/root/moat-linux-download";
const UNIT = "etc/systemd/system/moat.service";
let sys: TestSystem;
beforeAll(async () => {
  const deb = await debPackage();
  sys = await TestSystem.create("svc");
  // the binary a person downloads is the one the package holds
  const x = await run([
    "sh",
    "-c",
    `dpkg-deb --fsys-tarfile '${deb}' | tar -xO ./usr/bin/moat > '${sys.root}${BINARY}'`,
  ]);
  expect(x.code).toBe(0);
  chmodSync(join(sys.root, BINARY), 0o755);
}, 900_000);
afterAll(async () => {
  await sys?.destroy();
});

const nothingInstalled = () => {
  expect(existsSync(join(sys.root, UNIT))).toBe(false);
  expect(existsSync(join(sys.root, "usr/local/bin/moat"))).toBe(false);
  expect(readFileSync(join(sys.root, "etc/passwd"), "utf8")).not.toContain("moat:");
};

test("on a 32-bit ARM system install refuses in one line and changes nothing", async () => {
  // the system's shell as Raspberry Pi OS 32-bit has it: an ELF of class 32, machine ARM (40)
  const fake = join(sys.root, "..", "armhf-sh");
  const h = new Uint8Array(52);
  h.set([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1]);
  h.set([2, 0, 40, 0], 16);
  writeFileSync(fake, h);
  const r = await sys.exec([BINARY, "service", "install"], [[fake, "/usr/bin/dash"]]);
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("moat: Moat cannot run on this system: its programs are 32-bit ARM (armhf)");
  nothingInstalled();
});

test("install names the program that holds port 53 and changes nothing", async () => {
  const holder = Bun.spawn(
    [
      "ip",
      "netns",
      "exec",
      sys.ns,
      process.execPath,
      "-e",
      "await Bun.udpSocket({ port: 53 }); console.log('bound'); setTimeout(() => {}, 60000);",
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  try {
    const reader = (holder.stdout as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("bound");
    const name = readFileSync(`/proc/${holder.pid}/comm`, "utf8").trim();
    const r = await sys.exec([BINARY, "service", "install"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Moat needs these ports, and other programs hold them:\n  53/udp on 0.0.0.0: ${name} (pid ${holder.pid})\n`,
    );
    expect(r.stderr).toContain("Stop them (or move them to other ports), then run this again.");
    nothingInstalled();
  } finally {
    holder.kill();
    await holder.exited;
  }
}, 60_000);

test("install copies the binary, makes the user and the image's unit; Moat runs as the unit says; uninstall keeps the data", async () => {
  const r = await sys.exec([BINARY, "service", "install"]);
  expect({ code: r.code, stderr: r.stderr.split("\n").filter((l) => l && !l.startsWith("Created symlink")) }).toEqual({
    code: 0,
    stderr: [],
  });
  expect(r.stdout).toContain("binary: /usr/local/bin/moat\n");
  expect(r.stdout).toContain(
    "systemd is not running here (a chroot or container?): Moat is enabled and starts with the system",
  );
  const imageUnit = readFileSync(join(ROOT, "image/rootfs/etc/systemd/system/moat.service"), "utf8");
  expect(readFileSync(join(sys.root, UNIT), "utf8")).toBe(
    imageUnit.replace("ExecStart=/usr/bin/moat", "ExecStart=/usr/local/bin/moat"),
  );
  expect(readlinkSync(join(sys.root, "etc/systemd/system/multi-user.target.wants/moat.service"))).toBe(
    "/etc/systemd/system/moat.service",
  );
  expect(readFileSync(join(sys.root, "etc/passwd"), "utf8")).toMatch(
    /^moat:x:\d+:\d+:Moat DNS filter:\/etc\/moat:\/usr\/sbin\/nologin$/m,
  );
  const verify = await sys.exec(["systemd-analyze", "verify", `/${UNIT}`]);
  expect({
    code: verify.code,
    err: verify.stderr.split("\n").filter((l) => l && !l.includes("moat-firstboot")),
  }).toEqual({ code: 0, err: [] });

  await sys.startUnit(UNIT);
  const add = await sys.inNs([
    "curl",
    "-s",
    "-o",
    "/dev/null",
    "-w",
    "%{http_code}",
    "-X",
    "POST",
    "--data",
    '{"domain":"ads.example"}',
    "http://127.0.0.1/api/domains/deny/exact",
  ]);
  expect(add.stdout).toBe("201");
  expect(
    (await sys.inNs(["dig", "+short", "+time=2", "+tries=1", "@127.0.0.1", "ads.example", "A"])).stdout.trim(),
  ).toBe("0.0.0.0");
  const status = await sys.exec(["/usr/local/bin/moat", "service", "status"]);
  expect(status.stdout).toContain(
    "installed: /etc/systemd/system/moat.service by moat service install, runs /usr/local/bin/moat\n",
  );
  expect(status.stdout).toMatch(/^ {2}53\/udp on [^:]+: moat \(pid \d+\)$/m);
  // installing again while it runs: the ports it holds itself are no problem
  const again = await sys.exec(["/usr/local/bin/moat", "service", "install"]);
  expect(again.code).toBe(0);
  await sys.stopUnit();

  const u = await sys.exec(["/usr/local/bin/moat", "service", "uninstall"]);
  expect(u.code).toBe(0);
  expect(u.stdout).toContain("Its settings and data stay in /etc/moat");
  expect(existsSync(join(sys.root, UNIT))).toBe(false);
  expect(existsSync(join(sys.root, "usr/local/bin/moat"))).toBe(false);
  expect(existsSync(join(sys.root, "etc/systemd/system/multi-user.target.wants/moat.service"))).toBe(false);
  expect(existsSync(join(sys.root, "etc/moat/gravity.db"))).toBe(true);
}, 120_000);

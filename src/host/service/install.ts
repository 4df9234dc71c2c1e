// `moat service install | uninstall | status` on a systemd Linux without the Debian package: the binary
// copied to DIR (default /usr/local/bin), the unit of unit.ts in /etc/systemd/system, the `moat` user, data in
// /etc/moat. What the package does in its maintainer scripts (packaging/deb/), for a downloaded binary.
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { archRefusal, systemArch } from "./arch.ts";
import { describeHolders, isResolvedStub, MOAT_PORTS, portHolders, type Holder } from "./ports.ts";
import { execStartOf, PACKAGED_BINARY, unitFor } from "./unit.ts";

const UNIT_FILE = "/etc/systemd/system/moat.service";
const PACKAGE_LIST = "/var/lib/dpkg/info/moat.list";
const DATA_DIR = "/etc/moat";
const USER = "moat";

/** Runs a command, its output passed through; the exit code (127 when it is missing). */
export type Run = (cmd: string[]) => number;

export const runCommand: Run = (cmd) => {
  try {
    return Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit" }).exitCode ?? 1;
  } catch {
    return 127;
  }
};

const quiet = (cmd: string[]): { code: number; out: string } => {
  try {
    const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "ignore" });
    return { code: r.exitCode ?? 1, out: r.stdout.toString().trim() };
  } catch {
    return { code: 127, out: "" };
  }
};

const systemdRunning = () => existsSync("/run/systemd/system");

function requireRoot(what: string): void {
  if (process.getuid?.() !== 0) throw new Error(`moat service ${what} changes the system: run it as root (sudo)`);
}

function refusePackage(): void {
  if (existsSync(PACKAGE_LIST))
    throw new Error("Moat is installed from its Debian package here: apt upgrades and removes it (apt remove moat)");
}

/**
 * Whether this process is the compiled binary, whose entry point lives in Bun's embedded file system
 * (https://bun.sh/docs/bundler/executables), rather than `bun src/main.ts`, whose executable is Bun itself.
 */
export function isCompiledMain(main: string): boolean {
  return main.startsWith("/$bunfs/") || main.startsWith("B:/~BUN/");
}

/** The holders of Moat's ports that are not Moat itself, and what to do about them. */
export function portProblem(holders: readonly Holder[]): string | null {
  const others = holders.filter((h) => h.name !== "moat");
  if (others.length === 0) return null;
  const lines = describeHolders(others).map((l) => `  ${l}`);
  const stub = others.some(isResolvedStub)
    ? "\nsystemd-resolved's stub listener is one of them: `sudo moat service resolved-stub off` turns it off and keeps this machine's own lookups working."
    : "";
  return `Moat needs these ports, and other programs hold them:\n${lines.join("\n")}${stub}\nStop them (or move them to other ports), then run this again.`;
}

/** The user's uid and gid from an /etc/passwd text (null when absent). */
export function passwdEntry(passwd: string, user: string): { uid: number; gid: number } | null {
  for (const line of passwd.split("\n")) {
    const f = line.split(":");
    if (f[0] === user && f.length >= 4) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  return null;
}

const passwdOf = (user: string) => passwdEntry(readFileSync("/etc/passwd", "utf8"), user);

function ensureUser(run: Run): { uid: number; gid: number } {
  const found = passwdOf(USER);
  if (found) return found;
  const nologin = ["/usr/sbin/nologin", "/sbin/nologin"].find(existsSync) ?? "/bin/false";
  const cmd = ["useradd", "--system", "--user-group", "--home-dir", DATA_DIR, "--no-create-home", "--shell", nologin];
  if (run([...cmd, "--comment", "Moat DNS filter", USER]) !== 0)
    throw new Error("useradd could not create the user moat");
  const made = passwdOf(USER);
  if (!made) throw new Error("useradd reported success but /etc/passwd has no user moat");
  return made;
}

/** The addresses a person types into a browser to reach this machine. */
function adminUrls(): string[] {
  const urls = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === "IPv4")
    .map((a) => `http://${a!.address}/admin`);
  return urls.length ? urls : ["http://<this machine's address>/admin"];
}

export function install(args: string[], run: Run = runCommand): number {
  requireRoot("install");
  const refusal = archRefusal(systemArch(), process.arch);
  if (refusal) throw new Error(refusal);
  if (!isCompiledMain(Bun.main))
    throw new Error(
      "moat service install copies the compiled binary: build it first (bun scripts/build.ts) and run dist/moat",
    );
  refusePackage();
  if (!systemdRunning() && quiet(["systemctl", "--version"]).code !== 0)
    throw new Error(
      `this system has no systemd (no systemctl): start Moat from its init system as: moat serve --data-dir ${DATA_DIR}`,
    );
  const problem = portProblem(portHolders(MOAT_PORTS));
  if (problem) throw new Error(problem);

  const dir = args[0] ?? "/usr/local/bin";
  if (!dir.startsWith("/")) throw new Error(`the directory must be an absolute path: ${dir}`);
  const binary = join(dir, "moat");
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (binary !== process.execPath) {
    // a new file renamed over the old one: a running Moat keeps its copy (no "text file busy")
    copyFileSync(process.execPath, `${binary}.new`);
    chmodSync(`${binary}.new`, 0o755);
    renameSync(`${binary}.new`, binary);
  }
  console.log(`binary: ${binary}`);
  const { uid, gid } = ensureUser(run);
  mkdirSync(DATA_DIR, { recursive: true, mode: 0o750 });
  chownSync(DATA_DIR, uid, gid);
  console.log(`user: ${USER} (uid ${uid}), data: ${DATA_DIR}`);
  writeFileSync(UNIT_FILE, unitFor(binary), { mode: 0o644 });
  console.log(`unit: ${UNIT_FILE}`);
  if (!systemdRunning()) {
    if (run(["systemctl", "enable", "moat.service"]) !== 0) throw new Error("systemctl enable moat.service failed");
    console.log("systemd is not running here (a chroot or container?): Moat is enabled and starts with the system");
    return 0;
  }
  run(["systemctl", "daemon-reload"]);
  if (run(["systemctl", "enable", "moat.service"]) !== 0) throw new Error("systemctl enable moat.service failed");
  if (run(["systemctl", "restart", "moat.service"]) !== 0)
    throw new Error("moat.service did not start: see journalctl -u moat");
  console.log(`Moat is running. Open ${adminUrls().join(" or ")}`);
  return 0;
}

export function uninstall(run: Run = runCommand): number {
  requireRoot("uninstall");
  refusePackage();
  if (!existsSync(UNIT_FILE)) throw new Error(`Moat is not installed as a service here (no ${UNIT_FILE})`);
  const binary = execStartOf(readFileSync(UNIT_FILE, "utf8"));
  if (systemdRunning()) run(["systemctl", "disable", "--now", "moat.service"]);
  else run(["systemctl", "disable", "moat.service"]);
  rmSync(UNIT_FILE, { force: true });
  if (systemdRunning()) run(["systemctl", "daemon-reload"]);
  if (binary && binary !== PACKAGED_BINARY) rmSync(binary, { force: true });
  console.log(
    `Moat is uninstalled (unit and ${binary ?? "binary"} removed). Its settings and data stay in ${DATA_DIR}, and the user ${USER} stays: remove them with \`rm -r ${DATA_DIR}; userdel ${USER}\`.`,
  );
  return 0;
}

export function status(): number {
  const unit = [UNIT_FILE, "/usr/lib/systemd/system/moat.service", "/lib/systemd/system/moat.service"].find(existsSync);
  if (!unit) console.log("installed: no (`sudo moat service install` installs it)");
  else {
    const from = existsSync(PACKAGE_LIST) ? "the Debian package" : "moat service install";
    console.log(`installed: ${unit} by ${from}, runs ${execStartOf(readFileSync(unit, "utf8")) ?? "?"}`);
  }
  let active = false;
  if (unit && systemdRunning()) {
    const state = quiet(["systemctl", "is-active", "moat.service"]).out || "unknown";
    const enabled = quiet(["systemctl", "is-enabled", "moat.service"]).out || "unknown";
    active = state === "active";
    console.log(`service: ${state}, ${enabled}`);
  } else if (unit) console.log("service: systemd is not running here");
  const holders = portHolders(MOAT_PORTS);
  const lines = describeHolders(holders);
  console.log(lines.length ? `ports:\n${lines.map((l) => `  ${l}`).join("\n")}` : "ports: 53 and 80 are free");
  const problem = portProblem(holders);
  if (problem && !active) console.log(problem);
  return unit && (active || !systemdRunning()) ? 0 : 3;
}

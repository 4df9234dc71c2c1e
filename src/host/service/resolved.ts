// `moat service resolved-stub [status|off|on]`: systemd-resolved's stub listener (127.0.0.53:53) keeps Moat
// from binding port 53 on Ubuntu and other systemd machines. Turning it off is what AdGuard Home's setup
// does: a resolved.conf drop-in with DNSStubListener=no, and /etc/resolv.conf pointed at the file in which
// systemd-resolved lists the real upstream servers (systemd-resolved.service(8), "/etc/resolv.conf"), so
// the machine's own lookups keep working whether Moat runs or not. `on` undoes both.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { isResolvedStub, portHolders } from "./ports.ts";

const DROP_IN = "/etc/systemd/resolved.conf.d/moat.conf";
const RESOLV_CONF = "/etc/resolv.conf";
// what systemd-resolved writes: the upstream servers, and the stub's address (its default target)
const UPSTREAM_FILE = "/run/systemd/resolve/resolv.conf";
const STUB_FILE = "/run/systemd/resolve/stub-resolv.conf";

const DROP_IN_TEXT =
  "# Written by `moat service resolved-stub off` so that Moat can answer on port 53;\n" +
  "# `moat service resolved-stub on` removes it.\n[Resolve]\nDNSStubListener=no\n";

/** The nameserver lines of a resolv.conf. */
export function nameservers(text: string): string[] {
  return [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]!);
}

/** Why turning the stub off would leave the machine unable to resolve names, or null when it is safe. */
export function stubOffProblem(upstreamResolvConf: string | null): string | null {
  if (upstreamResolvConf === null)
    return `systemd-resolved has not written ${UPSTREAM_FILE}: is it running? The stub stays on`;
  const real = nameservers(upstreamResolvConf).filter((s) => !/^127\.0\.0\.5[34]$/.test(s));
  if (real.length === 0)
    return `systemd-resolved knows no upstream DNS server (${UPSTREAM_FILE} lists none); without the stub this machine could not resolve names: give it one (DNS= in /etc/systemd/resolved.conf, or your network's DHCP) first`;
  return null;
}

/** Whether /etc/resolv.conf sends the machine's lookups to the stub (a link to it, or 127.0.0.53 inside). */
export function usesStub(link: string | null, text: string): boolean {
  return link?.endsWith("/stub-resolv.conf") === true || nameservers(text).includes("127.0.0.53");
}

const readOr = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

const linkOf = (path: string): string | null => {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
};

function relink(target: string): void {
  const tmp = `${RESOLV_CONF}.moat-new`;
  rmSync(tmp, { force: true });
  symlinkSync(target, tmp);
  renameSync(tmp, RESOLV_CONF);
}

function restartResolved(systemctl: (args: string[]) => number): void {
  if (systemctl(["restart", "systemd-resolved.service"]) !== 0)
    throw new Error("systemctl restart systemd-resolved failed: see journalctl -u systemd-resolved");
}

/** Whether the stub listener holds port 53 now. */
function stubListening(): boolean {
  return portHolders([
    { proto: "udp", port: 53 },
    { proto: "tcp", port: 53 },
  ]).some(isResolvedStub);
}

export function resolvedStubCommand(action: string, systemctl: (args: string[]) => number): number {
  if (action === "status") {
    console.log(
      stubListening()
        ? "systemd-resolved's stub listener holds port 53 on 127.0.0.53: turn it off with `sudo moat service resolved-stub off`"
        : `systemd-resolved's stub listener is off${existsSync(DROP_IN) ? ` (${DROP_IN})` : ""}`,
    );
    return 0;
  }
  if (process.getuid?.() !== 0)
    throw new Error(`moat service resolved-stub ${action} changes the system: run it as root`);
  if (action === "off") {
    const problem = stubOffProblem(readOr(UPSTREAM_FILE));
    if (problem) throw new Error(problem);
    const stubbed = usesStub(linkOf(RESOLV_CONF), readOr(RESOLV_CONF) ?? "");
    mkdirSync("/etc/systemd/resolved.conf.d", { recursive: true });
    writeFileSync(DROP_IN, DROP_IN_TEXT, { mode: 0o644 });
    restartResolved(systemctl);
    if (stubbed) {
      relink(UPSTREAM_FILE);
      console.log(`${RESOLV_CONF} now points at ${UPSTREAM_FILE} (the upstream servers systemd-resolved knows)`);
    }
    console.log(`systemd-resolved's stub listener is off (${DROP_IN}); port 53 is free for Moat`);
    return 0;
  }
  if (action === "on") {
    rmSync(DROP_IN, { force: true });
    if (linkOf(RESOLV_CONF) === UPSTREAM_FILE) relink(`..${STUB_FILE}`);
    restartResolved(systemctl);
    console.log("systemd-resolved's stub listener is on again: it holds 127.0.0.53:53, and this machine asks it");
    return 0;
  }
  throw new Error(`unknown resolved-stub action "${action}" (status, off or on)`);
}

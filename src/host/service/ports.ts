// Who holds the ports Moat needs, read from /proc (no `ss` or `lsof` needed): the kernel's socket tables
// (/proc/net/tcp, tcp6, udp, udp6: proc(5)) give each bound socket's address and inode, and a process's
// /proc/PID/fd links name the inodes it holds ("socket:[INODE]").
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export type Proto = "tcp" | "udp";

export interface Bound {
  proto: Proto;
  address: string;
  port: number;
  inode: number;
}

export interface Holder extends Bound {
  pid?: number;
  /** the process's name (/proc/PID/comm) */
  name?: string;
}

/** The ports `moat serve` binds with its defaults: DNS on 53 (UDP and TCP), HTTP on 80. */
export const MOAT_PORTS: readonly { proto: Proto; port: number }[] = [
  { proto: "udp", port: 53 },
  { proto: "tcp", port: 53 },
  { proto: "tcp", port: 80 },
];

// TCP_LISTEN; a bound UDP socket that is not connected shows TCP_CLOSE (include/net/tcp_states.h)
const HOLDING_STATE: Record<Proto, string> = { tcp: "0A", udp: "07" };

/** An address of /proc/net/*: IPv4 as one 32-bit word, IPv6 as four, each in the host's (little-endian) order. */
export function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((w) => (w.match(/../g) ?? []).reverse().map((b) => Number.parseInt(b, 16)));
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  if (groups.slice(0, 6).join(":") === "0:0:0:0:0:ffff") return `::ffff:${bytes.slice(12).join(".")}`;
  // RFC 5952: the longest run of two or more zero groups becomes "::"
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j > i ? j : i + 1;
  }
  if (best.at < 0) return groups.join(":");
  return `${groups.slice(0, best.at).join(":")}::${groups.slice(best.at + best.len).join(":")}`;
}

/** The sockets of one /proc/net table that hold a port (listening TCP, bound UDP). */
export function parseSocketTable(text: string, proto: Proto): Bound[] {
  const out: Bound[] = [];
  for (const line of text.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== HOLDING_STATE[proto]) continue;
    const [addr, port] = f[1]!.split(":");
    if (!addr || !port) continue;
    out.push({ proto, address: decodeAddress(addr), port: Number.parseInt(port, 16), inode: Number(f[9]) });
  }
  return out;
}

/** The inode of a /proc/PID/fd link's target when it is a socket. */
export function socketInode(link: string): number | null {
  const m = /^socket:\[(\d+)\]$/.exec(link);
  return m ? Number(m[1]) : null;
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/** Which processes hold which socket inodes (only processes this user may look into). */
function inodeOwners(proc: string, wanted: Set<number>): Map<number, { pid: number; name: string }> {
  const owners = new Map<number, { pid: number; name: string }>();
  for (const pid of readdirSync(proc).filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`${proc}/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let inode: number | null = null;
      try {
        inode = socketInode(readlinkSync(`${proc}/${pid}/fd/${fd}`));
      } catch {}
      if (inode !== null && wanted.has(inode) && !owners.has(inode))
        owners.set(inode, { pid: Number(pid), name: read(`${proc}/${pid}/comm`).trim() });
    }
  }
  return owners;
}

/** Every socket holding one of `ports`, with the process that holds it where /proc shows it. */
export function portHolders(ports: readonly { proto: Proto; port: number }[] = MOAT_PORTS, proc = "/proc"): Holder[] {
  const bound = (["tcp", "udp"] as const).flatMap((proto) =>
    [proto, `${proto}6`].flatMap((table) => parseSocketTable(read(`${proc}/net/${table}`), proto)),
  );
  const held = bound.filter((b) => ports.some((p) => p.proto === b.proto && p.port === b.port));
  const owners = inodeOwners(proc, new Set(held.map((h) => h.inode)));
  return held.map((h) => ({ ...h, ...owners.get(h.inode) }));
}

/** systemd-resolved's stub listeners (resolved.conf(5): 127.0.0.53, and 127.0.0.54 for the proxy mode). */
export function isResolvedStub(h: Bound): boolean {
  return h.port === 53 && (h.address === "127.0.0.53" || h.address === "127.0.0.54");
}

/** One line per holder: "53/udp on 127.0.0.53: systemd-resolve (pid 412)". */
export function describeHolders(holders: readonly Holder[]): string[] {
  const lines = holders.map(
    (h) =>
      `${h.port}/${h.proto} on ${h.address}: ${h.name ? `${h.name} (pid ${h.pid})` : "a process this user cannot see (run as root to name it)"}`,
  );
  return [...new Set(lines)];
}

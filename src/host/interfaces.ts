// The host's network as /api/network/* shows it: routes from /proc/net/route and
// /proc/net/ipv6_route, neighbours from /proc/net/arp, interfaces from /sys/class/net and
// os.networkInterfaces().
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
const trim = (p: string) => read(p)?.trim() ?? null;

/** Little-endian hex of /proc/net/route → dotted quad. */
function hexToIPv4(h: string): string {
  const n = parseInt(h, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join(".");
}
function hexToIPv6(h: string): string {
  const parts = h.match(/.{4}/g) ?? [];
  return parts
    .map((p) => p.replace(/^0+(?=.)/, ""))
    .join(":")
    .replace(/(^|:)0(:0)+(:|$)/, "::");
}
function maskBits(hexMask: string): number {
  let n = parseInt(hexMask, 16) >>> 0;
  let bits = 0;
  while (n) {
    bits += n & 1;
    n >>>= 1;
  }
  return bits;
}

/** A route as Pi-hole lists it: keys the kernel has no value for are left out, not null. */
interface Route {
  gateway?: string;
  family: "inet" | "inet6";
  table: number;
  protocol?: string;
  scope?: string;
  type: string;
  flags: string[];
  oif: string;
  iif?: string;
  dst: string;
  src?: string;
  prefsrc?: string;
  priority: number;
  pref?: string;
}

export function routes(): Route[] {
  const out: Route[] = [];
  const v4 = (read("/proc/net/route") ?? "").split("\n").slice(1);
  for (const line of v4) {
    const f = line.trim().split(/\s+/);
    if (f.length < 11) continue;
    const [iface, dst, gw, flags, , , metric, mask] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const fl = parseInt(flags, 16);
    const bits = maskBits(mask);
    const r: Route = {
      family: "inet",
      table: 254,
      scope: fl & 2 ? "universe" : "link",
      type: "unicast",
      flags: [],
      oif: iface,
      dst: bits === 0 ? "default" : `${hexToIPv4(dst)}/${bits}`,
      priority: Number(metric),
    };
    if (fl & 2) r.gateway = hexToIPv4(gw);
    out.push(r);
  }
  for (const line of (read("/proc/net/ipv6_route") ?? "").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const bits = parseInt(f[1]!, 16);
    const gw = f[4]!;
    const iface = f[9]!;
    if (iface === "lo" && bits === 128) continue;
    const r: Route = {
      family: "inet6",
      table: 254,
      type: "unicast",
      flags: [],
      oif: iface,
      dst: bits === 0 ? "default" : `${hexToIPv6(f[0]!)}/${bits}`,
      priority: parseInt(f[5]!, 16),
    };
    if (!/^0+$/.test(gw)) r.gateway = hexToIPv6(gw);
    out.push(r);
  }
  return out;
}

/** A byte count as Pi-hole shows it: a value with an SI prefix ("" for bytes, "K", "M", "G", …). */
export function siSize(bytes: number): { value: number; unit: string } {
  const prefixes = ["", "K", "M", "G", "T", "P", "E"];
  let value = bytes;
  let i = 0;
  while (value >= 1000 && i < prefixes.length - 1) {
    value /= 1000;
    i++;
  }
  return { value, unit: prefixes[i]! };
}

/** Copies the entries of `o` whose value is known (Pi-hole leaves a key out rather than send null). */
function known<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], null>;
  };
}

export function gateways() {
  const ifs = os.networkInterfaces();
  return routes()
    .filter((r) => r.dst === "default" && r.gateway)
    .map((r) => ({
      family: r.family,
      interface: r.oif,
      address: r.gateway!,
      local: (ifs[r.oif] ?? []).filter((a) => (a.family === "IPv4") === (r.family === "inet")).map((a) => a.address),
    }));
}

export function interfaces() {
  const ifs = os.networkInterfaces();
  const names = new Set<string>(Object.keys(ifs));
  if (existsSync("/sys/class/net")) for (const n of readdirSync("/sys/class/net")) names.add(n);
  return [...names].sort().map((name) => {
    const base = `/sys/class/net/${name}`;
    const num = (p: string) => {
      const v = Number(trim(`${base}/${p}`));
      return trim(`${base}/${p}`) === null || !Number.isFinite(v) ? null : v;
    };
    const flags = num("flags");
    const stat = (s: string) => num(`statistics/${s}`);
    const bytes = (s: string) => {
      const n = stat(s);
      return n === null ? null : siSize(n);
    };
    return {
      name,
      ...known({
        speed: num("speed"),
        carrier: num("carrier") === null ? null : num("carrier") === 1,
        type:
          trim(`${base}/type`) === "772" ? "loopback" : trim(`${base}/type`) === "1" ? "ether" : trim(`${base}/type`),
      }),
      flags:
        flags === null
          ? []
          : [
              ["up", 1],
              ["broadcast", 2],
              ["loopback", 8],
              ["pointopoint", 16],
              ["running", 64],
              ["multicast", 4096],
            ]
              .filter(([, b]) => flags & (b as number))
              .map(([n]) => n as string),
      ...known({
        state: trim(`${base}/operstate`),
        proto_down: num("proto_down") === null ? null : num("proto_down") === 1,
        address: trim(`${base}/address`),
        broadcast: trim(`${base}/broadcast`),
      }),
      stats: known({
        rx_bytes: bytes("rx_bytes"),
        tx_bytes: bytes("tx_bytes"),
        rx_packets: stat("rx_packets"),
        tx_packets: stat("tx_packets"),
        rx_errors: stat("rx_errors"),
        tx_errors: stat("tx_errors"),
        rx_dropped: stat("rx_dropped"),
        tx_dropped: stat("tx_dropped"),
        multicast: stat("multicast"),
        collisions: stat("collisions"),
      }),
      addresses: (ifs[name] ?? []).map((a) => ({
        address: a.address,
        family: a.family === "IPv4" ? "inet" : "inet6",
        prefixlen: Number(a.cidr?.split("/")[1] ?? 0),
        scope: a.internal ? "host" : "global",
        netmask: a.netmask,
      })),
    };
  });
}

/** The kernel's IPv4 neighbour table: ip → { hwaddr, iface }. */
export function neighbours(): Map<string, { hwaddr: string; iface: string }> {
  const out = new Map<string, { hwaddr: string; iface: string }>();
  for (const line of (read("/proc/net/arp") ?? "").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6 || f[3] === "00:00:00:00:00:00") continue;
    out.set(f[0]!, { hwaddr: f[3]!.toLowerCase(), iface: f[5]! });
  }
  return out;
}

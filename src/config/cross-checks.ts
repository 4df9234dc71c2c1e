// Checks of settings that only make sense together, run when a change touches one of their keys (an
// old file with such a mix still loads; the next change to those keys must fix it). Each returns the
// key to blame and the problem in words, or null.
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import type { Config } from "./schema.ts";
import { selfUpstreams } from "./self-upstream.ts";

interface CrossCheck {
  /** the keys whose change runs the check */
  keys: readonly string[];
  check: (c: Config) => { path: string; problem: string } | null;
}

/** An IPv4 network as the addresses it may have: `net` masked by `mask` (both 32-bit numbers). */
interface Net4 {
  net: number;
  mask: number;
  /** where the mask came from, for the message */
  from: string;
}

const num4 = (ip: string) => ip.split(".").reduce((n, o) => n * 256 + Number(o), 0) >>> 0;
const text4 = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join(".");

/** The largest DHCP network assumed when neither dhcp.netmask nor an interface says: a /16. */
const DEFAULT_MASK = 0xffff0000;

/**
 * The network a DHCP range starting at `start` lies in: dhcp.netmask when set, else that of the
 * machine's interface whose network holds `start` (what src/dhcp/settings.ts serves on), else a /16.
 */
function rangeNetwork(c: Config, start: string, interfaces = networkInterfaces): Net4 {
  const s = num4(start);
  if (c.dhcp.netmask !== "" && c.dhcp.netmask !== "0.0.0.0") {
    const mask = num4(c.dhcp.netmask);
    return { net: (s & mask) >>> 0, mask, from: "dhcp.netmask" };
  }
  for (const [name, addrs] of Object.entries(interfaces()))
    for (const a of addrs ?? []) {
      if (a.family !== "IPv4") continue;
      const mask = num4(a.netmask);
      if ((num4(a.address) & mask) >>> 0 === (s & mask) >>> 0)
        return { net: (s & mask) >>> 0, mask, from: `interface ${name}` };
    }
  return { net: (s & DEFAULT_MASK) >>> 0, mask: DEFAULT_MASK, from: "no interface holds it: at most a /16" };
}

const inNet = (ip: string, n: Net4) => (num4(ip) & n.mask) >>> 0 === n.net;
const describe = (n: Net4) => `${text4(n.net)}/${Math.clz32(~n.mask >>> 0)} (${n.from})`;

/** dhcp.start and dhcp.end, when both are set: in order, in one network. */
function dhcpRange(c: Config, interfaces = networkInterfaces): { path: string; problem: string } | null {
  const { start, end } = c.dhcp;
  if (start === "" || end === "") return null;
  if (num4(end) < num4(start))
    return { path: "dhcp.end", problem: `the range ends before it starts (${end} is before dhcp.start ${start})` };
  const net = rangeNetwork(c, start, interfaces);
  if (!inNet(end, net))
    return {
      path: "dhcp.end",
      problem: `${end} is not in the network of dhcp.start ${start}, ${describe(net)}: a DHCP range lies in one network`,
    };
  return null;
}

/** Each static lease's IPv4 address lies in the network of the DHCP range. */
function dhcpReservations(c: Config, interfaces = networkInterfaces): { path: string; problem: string } | null {
  if (c.dhcp.start === "" || c.dhcp.end === "") return null;
  const net = rangeNetwork(c, c.dhcp.start, interfaces);
  for (const [i, line] of c.dhcp.hosts.entries()) {
    const ip = line
      .split(",")
      .map((p) => p.trim())
      .find((p) => isIP(p) === 4);
    if (ip !== undefined && !inNet(ip, net))
      return {
        path: "dhcp.hosts",
        problem: `[${i}]: ${ip} is outside the network of the DHCP range, ${describe(net)}: a device there would not reach it`,
      };
  }
  return null;
}

/** An upstream that is Moat itself (one of its addresses and its DNS, DoT or HTTPS port) would loop. */
function selfUpstream(c: Config): { path: string; problem: string } | null {
  const why = selfUpstreams(c.dns.upstreams, { dns: c.dns.port, dot: c.dns.tls.port, web: c.webserver.port });
  return why ? { path: "dns.upstreams", problem: why } : null;
}

const CROSS_CHECKS: readonly CrossCheck[] = [
  { keys: ["dns.upstreams", "dns.port", "dns.tls.port", "webserver.port"], check: selfUpstream },
  { keys: ["dhcp.start", "dhcp.end", "dhcp.netmask"], check: dhcpRange },
  { keys: ["dhcp.start", "dhcp.end", "dhcp.netmask", "dhcp.hosts"], check: dhcpReservations },
];

/** The first problem of the checks that a change of `changed` keys runs, as "<key>: <problem>". */
export function crossProblem(c: Config, changed: readonly string[]): string | null {
  for (const x of CROSS_CHECKS) {
    if (!x.keys.some((k) => changed.includes(k))) continue;
    const p = x.check(c);
    if (p) return `${p.path}${p.problem.startsWith("[") ? "" : ": "}${p.problem}`;
  }
  return null;
}

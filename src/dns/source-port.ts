// Source ports for upstream sockets, drawn from the CSPRNG (RFC 5452 §9.2: "an unpredictable source
// port ... from the range of available ports ... as large as possible and practicable") over the
// kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 unless changed: 28,232 ports,
// about 14.8 bits on top of the ID's 16) less net.ipv4.ip_local_reserved_ports. That range is the one
// the system keeps for outgoing sockets, so a port of ours never keeps a service configured on a
// lower port from starting (unbound draws from 1024-65535 and needs an avoid list for that). The
// caller binds the port and draws again when the bind finds it taken (EADDRINUSE).
import { readFileSync } from "node:fs";
import { randomU16 } from "./random.ts";

export interface PortRange {
  lo: number;
  hi: number;
  reserved: ReadonlySet<number>;
}

/** Linux's default ephemeral range (Documentation/networking/ip-sysctl.rst) */
const DEFAULT: PortRange = { lo: 32768, hi: 60999, reserved: new Set() };
/** draws before giving up on a range whose ports are nearly all reserved */
const DRAWS = 64;

/** The range of `ip_local_port_range`'s "lo hi", with `ip_local_reserved_ports`' "a,b-c" left out; the default when unreadable. */
export function parseRange(range: string, reserved: string): PortRange {
  const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(range);
  const lo = m ? Number(m[1]) : 0;
  const hi = m ? Number(m[2]) : 0;
  if (!m || lo < 1024 || hi > 65535 || hi < lo) return DEFAULT;
  const out = new Set<number>();
  for (const part of reserved.split(",")) {
    const r = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!r) continue;
    const a = Math.max(lo, Number(r[1]));
    const b = Math.min(hi, Number(r[2] ?? r[1]));
    for (let p = a; p <= b; p++) out.add(p);
  }
  return { lo, hi, reserved: out };
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return ""; // not Linux, or no /proc: the default range
  }
}

let system: PortRange | null = null;

function systemRange(): PortRange {
  system ??= parseRange(
    read("/proc/sys/net/ipv4/ip_local_port_range"),
    read("/proc/sys/net/ipv4/ip_local_reserved_ports"),
  );
  return system;
}

/** A port drawn uniformly from the range (no modulo bias), or 0 (the kernel's choice) when none is free of reservations. */
export function randomPort(r: PortRange = systemRange()): number {
  const n = r.hi - r.lo + 1;
  const limit = 65536 - (65536 % n);
  for (let i = 0; i < DRAWS; i++) {
    const x = randomU16();
    if (x >= limit) continue;
    const p = r.lo + (x % n);
    if (!r.reserved.has(p)) return p;
  }
  return 0;
}

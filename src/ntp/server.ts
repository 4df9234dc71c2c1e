// The NTP server (RFC 5905 server mode) on port 123 for `ntp.ipv4.active` / `ntp.ipv6.active`:
// the time of the system clock, stratum 3 with no leap warning while the kernel says the clock is
// synchronised, else leap indicator 3 and stratum 16 (unsynchronised) so clients do not follow it.
// Moat does not set the clock itself (ntp.sync): on the appliance systemd-timesyncd does that.
// On every address (no ntp.ipv4.address / ntp.ipv6.address) the answer leaves from the address the
// request was sent to, as a client expects: the DNS engine's wildcard socket that reads each
// datagram's destination (src/dns/pktinfo-wildcard.ts); a plain wildcard socket would answer a
// second address, a ULA beside a global one or 127.0.0.2 from the address routing picks.
import { createSocket, type Socket } from "node:dgram";
import type { Runtime } from "../core/runtime.ts";
import { PktinfoWildcard } from "../dns/pktinfo-wildcard.ts";
import { clockState } from "./clock.ts";
import { clientVersion, serverReply, type ServerState } from "./packet.ts";

const NTP_PORT = 123;
/** Our own stratum when synchronised: we do not know our source's, and pool servers are mostly 2. */
const SYNCED_STRATUM = 3;
const UNSYNCED_STRATUM = 16;
/** Date.now() resolves milliseconds: 2^-10 s */
const PRECISION = -10;

/** The answer state, read from the kernel at most once a second. */
function stateReader(): () => ServerState {
  let cached: ServerState | null = null;
  let at = 0;
  return () => {
    const now = Date.now();
    if (cached && now - at < 1000) return cached;
    const c = clockState();
    at = now;
    cached = {
      leap: c.leap,
      stratum: c.synchronised ? SYNCED_STRATUM : UNSYNCED_STRATUM,
      precision: PRECISION,
      rootDelay: 0,
      rootDispersion: Math.min(c.maxError, 16),
      refId: c.synchronised ? 0x4c4f434c : 0x494e4954, // "LOCL" / "INIT"
      refTime: c.synchronised ? now / 1000 : 0,
    };
    return cached;
  };
}

/** The answer to one request (null: none). */
function replyTo(req: Uint8Array, state: () => ServerState): Uint8Array | null {
  const received = Date.now() / 1000;
  const version = clientVersion(req);
  if (version === null) return null;
  return serverReply(req, version, state(), received, () => Date.now() / 1000);
}

function listen(family: 4 | 6, address: string, state: () => ServerState, log: Runtime["log"]): Promise<Socket | null> {
  // reuseAddr: another instance (a second Moat, a test) does not keep this one from serving
  const sock = createSocket({ type: family === 4 ? "udp4" : "udp6", reuseAddr: true, ipv6Only: family === 6 });
  sock.on("message", (msg, rinfo) => {
    const reply = replyTo(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), state);
    if (reply) sock.send(reply, rinfo.port, rinfo.address);
  });
  return new Promise((resolve) => {
    sock.once("error", (e) => {
      log(
        "warn",
        `NTP: cannot serve on ${family === 4 ? address || "0.0.0.0" : `[${address || "::"}]`}:${NTP_PORT} (${(e as NodeJS.ErrnoException).code ?? e.message})`,
      );
      sock.close();
      resolve(null);
    });
    sock.bind(NTP_PORT, address || (family === 4 ? "0.0.0.0" : "::"), () => {
      sock.removeAllListeners("error");
      sock.on("error", () => {}); // a send to a vanished client is not worth a line
      resolve(sock);
    });
  });
}

/**
 * One socket on [::]:123 for the families served on every address (dual-stack, or IPv6 only), which
 * answers from the address asked; null where libc cannot be reached (the plain sockets then), or
 * "taken" when the port is (reported as listen() reports it).
 */
function wildcard(
  v4: boolean,
  v6: boolean,
  state: () => ServerState,
  log: Runtime["log"],
): PktinfoWildcard | null | "taken" {
  try {
    // an IPv4-only service still needs the dual-stack socket to see IPv4: it drops IPv6 requests
    const handle = (req: Uint8Array, client: string) => (!v6 && client.includes(":") ? null : replyTo(req, state));
    return new PktinfoWildcard(NTP_PORT, handle, { v6only: !v4, reuseAddr: true });
  } catch (e) {
    if (!/EADDRINUSE/.test((e as Error).message)) return null;
    log("warn", `NTP: cannot serve on [::]:${NTP_PORT} (EADDRINUSE)`);
    return "taken";
  }
}

/** Serves NTP as the config says, and again whenever an ntp.* setting changes. */
export function startNtpService(rt: Pick<Runtime, "config" | "log">): { stop(): Promise<void> } {
  const state = stateReader();
  let sockets: Array<Socket | PktinfoWildcard> = [];
  let chain = Promise.resolve();
  const open = async () => {
    const n = rt.config.current.ntp;
    const anyV4 = n.ipv4.active && !n.ipv4.address,
      anyV6 = n.ipv6.active && !n.ipv6.address;
    const shared = anyV4 || anyV6 ? wildcard(anyV4, anyV6, state, rt.log) : null;
    const plain = shared === null;
    const opened = await Promise.all([
      n.ipv4.active && (plain || n.ipv4.address) ? listen(4, n.ipv4.address, state, rt.log) : null,
      n.ipv6.active && (plain || n.ipv6.address) ? listen(6, n.ipv6.address, state, rt.log) : null,
    ]);
    sockets = opened.filter((s): s is Socket => s !== null);
    if (shared instanceof PktinfoWildcard) sockets.push(shared);
  };
  const close = async () => {
    const was = sockets;
    sockets = [];
    await Promise.all(was.map((s) => s.close()));
  };
  chain = open();
  const unsubscribe = rt.config.subscribe((_n, _p, changed) => {
    if (changed.some((p) => p.startsWith("ntp.ipv4.") || p.startsWith("ntp.ipv6.")))
      chain = chain.then(close).then(open);
  });
  return {
    async stop() {
      unsubscribe();
      await chain;
      await close();
    },
  };
}

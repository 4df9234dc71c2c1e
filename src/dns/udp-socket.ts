// One UDP listening socket on dns.port: each datagram goes to a resolver's handle(), and answers
// (at once or after forwarding) leave in sendmmsg batches (udp-batch.ts). With `reusePort`, the
// socket is opened with SO_REUSEPORT, so every DNS thread binds the same port and the kernel spreads
// clients across them by their address and port, and one address's socket binds beside the
// wildcard's (udp-listeners.ts opens every socket so).
import type { udp } from "bun";
import { normalizeIp } from "../net/ip.ts";
import type { Pending } from "./context.ts";
import { UdpBatcher } from "./udp-batch.ts";

export type UdpSocket = udp.Socket<"uint8array">;

/**
 * Bun.udpSocket's listen flags (uSockets' LISTEN_REUSE_PORT | LISTEN_DISALLOW_REUSE_PORT_FAILURE):
 * not in Bun's types, but what Bun 1.4's own node:dgram passes for `reusePort: true`. Bun's own
 * option set has no reusePort, and node:dgram would lose sendMany.
 */
const REUSE_PORT_FLAGS = 4 | 32;

/** a forwarded query's failure: no answer, as for a dropped datagram (one function, not one per query) */
const ignore = () => {};

/** Binds `hostname:port`; rejects with EADDRINUSE and the like as Bun.udpSocket does. */
export async function bindUdp(
  hostname: string,
  port: number,
  reusePort: boolean,
  handle: (buf: Uint8Array, client: string) => Pending,
): Promise<UdpSocket> {
  let batcher: UdpBatcher | null = null;
  const batcherOf = (sock: UdpSocket) => (batcher ??= new UdpBatcher((q) => sock.sendMany(q)));
  const options = {
    hostname,
    port,
    binaryType: "uint8array" as const,
    flags: reusePort ? REUSE_PORT_FLAGS : 0,
    socket: {
      data: (sock: UdpSocket, buf: Uint8Array, rport: number, addr: string) => {
        const r = handle(buf, normalizeIp(addr));
        // forwarded answers come back in bursts too (one upstream datagram batch): they leave batched as well
        if (r instanceof Promise) r.then((a) => a && batcherOf(sock).send(a, rport, addr), ignore);
        else if (r) batcherOf(sock).send(r, rport, addr);
      },
      error: () => {},
    },
  };
  return Bun.udpSocket(options);
}

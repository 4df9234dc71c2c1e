// Waits for datagrams on the wildcard socket of pktinfo.ts (a blocking poll, which would stall a DNS
// thread) and hands each, with the address it was sent to, to the main thread, which answers it
// itself. Only queries to an address no per-address socket holds come this way (udp-listeners.ts).
import { pollReadable } from "../net/libc.ts";
import { type Datagram, receive } from "./pktinfo.ts";

declare const self: Worker;

export interface PktinfoStart {
  fd: number;
  /**
   * Int32 [stop, backlog]: the main thread sets stop to 1 to end the loop; backlog counts datagrams
   * posted that the main thread has not taken yet (this side adds, that one subtracts)
   */
  shared: SharedArrayBuffer;
}

/** Datagrams the main thread may have waiting: past this, they are dropped as a full socket buffer drops them. */
export const MAX_BACKLOG = 1024;
export type FromPktinfo = Datagram | "stopped";

self.onmessage = (e: MessageEvent<PktinfoStart>) => {
  const shared = new Int32Array(e.data.shared);
  const fd = e.data.fd;
  const buf = new Uint8Array(65535);
  // short poll timeouts so a stop request is seen promptly
  while (Atomics.load(shared, 0) === 0) {
    if (pollReadable([fd], 200).length === 0) continue;
    for (let i = 0; i < 64; i++) {
      const d = receive(fd, buf);
      if (!d) break;
      // a flood to 127.0.0.2 must not queue without bound in the main thread's inbox
      if (Atomics.load(shared, 1) >= MAX_BACKLOG) continue;
      Atomics.add(shared, 1, 1);
      self.postMessage(d satisfies FromPktinfo);
    }
  }
  self.postMessage("stopped" satisfies FromPktinfo);
};

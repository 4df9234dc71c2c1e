// Waits for datagrams on the wildcard socket of pktinfo.ts (a blocking poll, which would stall a DNS
// thread) and hands each, with the address it was sent to, to the main thread, which answers it
// itself. Only queries to an address no per-address socket holds come this way (udp-listeners.ts).
import { type Datagram, receive, waitReadable } from "./pktinfo.ts";

declare const self: Worker;

export interface PktinfoStart {
  fd: number;
  /** Int32 flag: the main thread sets it to 1 to stop the loop */
  stop: SharedArrayBuffer;
}
export type FromPktinfo = Datagram | "stopped";

self.onmessage = (e: MessageEvent<PktinfoStart>) => {
  const stop = new Int32Array(e.data.stop);
  const fd = e.data.fd;
  const buf = new Uint8Array(65535);
  // short poll timeouts so a stop request is seen promptly
  while (Atomics.load(stop, 0) === 0) {
    if (!waitReadable(fd, 200)) continue;
    for (let i = 0; i < 64; i++) {
      const d = receive(fd, buf);
      if (!d) break;
      self.postMessage(d satisfies FromPktinfo);
    }
  }
  self.postMessage("stopped" satisfies FromPktinfo);
};

// Waits for datagrams on the DHCP sockets (a blocking poll, which would stall the main thread) and
// hands each one to the server on the main thread. The main thread sends the replies itself.
import { pollReadable, recvFrom } from "../net/libc.ts";

declare const self: Worker;

export interface RecvStart {
  fds: number[];
  /** Int32 flag: the main thread sets it to 1 to stop the loop */
  stop: SharedArrayBuffer;
}
export interface Received {
  fd: number;
  data: Uint8Array;
  addr: number;
  port: number;
}

self.onmessage = (e: MessageEvent<RecvStart>) => {
  const stop = new Int32Array(e.data.stop);
  const buf = new Uint8Array(4096);
  const fds = e.data.fds;
  // short poll timeouts so a stop request is seen promptly
  while (Atomics.load(stop, 0) === 0) {
    for (const fd of pollReadable(fds, 200)) {
      for (let i = 0; i < 64; i++) {
        const got = recvFrom(fd, buf);
        if (!got) break;
        const msg: Received = { fd, data: buf.slice(0, got.length), addr: got.addr, port: got.port };
        self.postMessage(msg);
      }
    }
  }
  self.postMessage("stopped");
};

// The main thread's side of the wildcard socket that answers from the address asked (pktinfo.ts):
// a worker waits for its datagrams (pktinfo-worker.ts), this thread's resolver answers each, and the
// answer leaves from the datagram's destination address on its interface. It carries what no
// per-address socket does (udp-listeners.ts), so it is not on the common path; its closures are fine.
// NTP's wildcard is one too (src/ntp/server.ts).
import { workerUrl } from "../core/worker-url.ts";
import {
  answer,
  closePktinfoSocket,
  type Datagram,
  openPktinfoSocket,
  type PktinfoOptions,
  senderText,
} from "./pktinfo.ts";
import type { FromPktinfo, PktinfoStart } from "./pktinfo-worker.ts";

type Reply = Uint8Array | null;
/** one datagram's answer (null: none), from its sender's address (IPv4 without ::ffff:) */
type Handle = (buf: Uint8Array, client: string) => Reply | Promise<Reply>;

export class PktinfoWildcard {
  /** Int32 [stop, backlog] (pktinfo-worker.ts) */
  private readonly shared = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private readonly fd: number;
  private closing: Promise<void> | null = null;

  /** Binds [::]:port (throws as openPktinfoSocket does) and starts receiving. */
  constructor(
    port: number,
    private readonly handle: Handle,
    opts: PktinfoOptions = {},
  ) {
    this.fd = openPktinfoSocket(port, opts);
    this.worker = new Worker(workerUrl("dns/pktinfo-worker.ts"));
    this.worker.onmessage = (e: MessageEvent<FromPktinfo>) => {
      if (e.data === "stopped") return;
      Atomics.sub(this.shared, 1, 1);
      this.query(e.data);
    };
    this.worker.postMessage({ fd: this.fd, shared: this.shared.buffer as SharedArrayBuffer } satisfies PktinfoStart);
  }

  private query(d: Datagram): void {
    const r = this.handle(d.data, senderText(d.from));
    if (r instanceof Promise)
      r.then(
        (a) => a && !this.closing && answer(this.fd, a, d),
        () => {},
      );
    else if (r && !this.closing) answer(this.fd, r, d);
  }

  /** Stops the worker (within its 200 ms poll), then closes the socket, so the port is free when it resolves. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((res) => {
      Atomics.store(this.shared, 0, 1);
      let closed = false;
      const done = () => {
        if (closed) return;
        closed = true;
        clearTimeout(t);
        this.worker.terminate();
        closePktinfoSocket(this.fd);
        res();
      };
      const t = setTimeout(done, 1000);
      this.worker.addEventListener("message", (e) => e.data === "stopped" && done());
    });
    return this.closing;
  }
}

// UDP packets leave in batches: the answers (and the queries to upstreams) made while the event loop
// works through one burst of datagrams go out in one sendmmsg (Bun's sendMany) instead of one system
// call each. The batch is flushed at the end of the loop turn, or at once when it is full, so no
// packet waits longer.

const MAX_BATCH = 64;

type Packets = Array<Uint8Array | number | string>;

export class UdpBatcher {
  private queue: Packets = [];
  private scheduled = false;

  /** `sendMany`: the socket's; `connected`: packets are data alone (a connected socket), else data, port, address */
  constructor(
    private readonly sendMany: (packets: Packets) => number,
    private readonly connected = false,
  ) {}

  send(data: Uint8Array, port = 0, addr = ""): void {
    if (this.connected) this.queue.push(data);
    else this.queue.push(data, port, addr);
    if (this.queue.length >= MAX_BATCH * (this.connected ? 1 : 3)) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  readonly flush = (): void => {
    this.scheduled = false;
    if (!this.queue.length) return;
    const q = this.queue;
    this.queue = [];
    try {
      this.sendMany(q);
    } catch {
      // a closed socket or an unreachable peer: those packets are lost, as a plain send's would be
    }
  };
}

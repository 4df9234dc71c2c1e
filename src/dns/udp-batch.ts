// UDP answers leave in batches: the answers computed while the event loop works through one burst of
// datagrams go out in one sendmmsg (Bun's sendMany) instead of one system call each. The batch is
// flushed at the end of the loop turn, or at once when it is full, so no answer waits longer.
import type { udp } from "bun";

const MAX_BATCH = 64;

export class UdpBatcher {
  private queue: Array<Uint8Array | number | string> = [];
  private scheduled = false;

  constructor(private readonly sock: udp.Socket<"uint8array">) {}

  send(data: Uint8Array, port: number, addr: string): void {
    this.queue.push(data, port, addr);
    if (this.queue.length >= MAX_BATCH * 3) this.flush();
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
      this.sock.sendMany(q);
    } catch {
      // a closed socket or an unreachable client: those answers are lost, as a plain send's would be
    }
  };
}

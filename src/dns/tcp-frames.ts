// DNS over TCP is a stream of messages, each behind its two-byte length (RFC 1035 §4.2.2, RFC 7766).
// A message is copied exactly once, into a Uint8Array of its own size, as its bytes arrive: a
// client that sends 64 KiB one byte at a time costs 64 KiB, not a copy of everything so far per
// chunk. Handlers get a plain Uint8Array that nothing else shares, never a view of the chunk: Bun's
// chunks are Node Buffers, whose slice() is a view, so patching a "copy" would rewrite the query.

export class FrameReader {
  /** the first length byte when a chunk ended between the two; -1 otherwise */
  private hi = -1;
  /** the message being filled, and how much of it has arrived */
  private msg: Uint8Array | null = null;
  private got = 0;

  constructor(private readonly onMessage: (msg: Uint8Array) => void) {}

  /** Takes one chunk; hands over every message it completes, in order. */
  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      let msg = this.msg;
      if (msg === null) {
        if (this.hi < 0) {
          this.hi = chunk[i++]!;
          continue;
        }
        msg = this.msg = new Uint8Array((this.hi << 8) | chunk[i++]!);
        this.hi = -1;
        this.got = 0;
      }
      const take = Math.min(msg.length - this.got, n - i);
      // byte by byte below 16: cheaper than a subarray view for the small chunks of a trickle
      if (take < 16) for (let k = 0; k < take; k++) msg[this.got + k] = chunk[i + k]!;
      else msg.set(chunk.subarray(i, i + take), this.got);
      this.got += take;
      i += take;
      if (this.got === msg.length) {
        this.msg = null;
        this.onMessage(msg);
      }
    }
  }

  /** Whether part of a message (or of its length) has arrived and the rest has not. */
  get partial(): boolean {
    return this.hi >= 0 || this.msg !== null;
  }

  /** Bytes held for the incomplete message. */
  get held(): number {
    return this.msg ? this.msg.length : 0;
  }
}

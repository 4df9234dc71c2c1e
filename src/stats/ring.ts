// The 24 h window's queries in time order, columnar and in fixed-size chunks of typed arrays only:
// names are ids into the window's tables, so a busy day's millions of queries hold no reference the
// collector would have to trace (measured: its pauses were the DNS thread's slowest answers). A chunk
// is dropped whole once every query in it has aged out, so memory follows the window without
// copying or slack.

const CHUNK = 16384;

class Chunk {
  readonly time = new Float64Array(CHUNK);
  readonly replyTime = new Float32Array(CHUNK);
  readonly type = new Uint32Array(CHUNK);
  readonly status = new Uint8Array(CHUNK);
  readonly reply = new Uint8Array(CHUNK);
  readonly domain = new Int32Array(CHUNK);
  readonly client = new Int32Array(CHUNK);
  readonly upstream = new Int32Array(CHUNK);
}

/** One query as the ring gives it back (a reused view: read it before the next call). */
export interface RingEntry {
  time: number;
  replyTime: number;
  type: number;
  status: number;
  reply: number;
  /** ids in the window's tables, -1 for none */
  domain: number;
  client: number;
  upstream: number;
}

export class RecordRing {
  private chunks: Chunk[] = [];
  /** index of the oldest entry in chunks[0] */
  private head = 0;
  /** entries used in the last chunk */
  private tail = CHUNK;
  private readonly view: RingEntry = {
    time: 0,
    replyTime: 0,
    type: 0,
    status: 0,
    reply: 0,
    domain: -1,
    client: -1,
    upstream: -1,
  };

  get size(): number {
    return this.chunks.length ? (this.chunks.length - 1) * CHUNK + this.tail - this.head : 0;
  }

  push(e: RingEntry): void {
    if (this.tail === CHUNK) {
      this.chunks.push(new Chunk());
      this.tail = 0;
    }
    const c = this.chunks[this.chunks.length - 1]!,
      i = this.tail++;
    c.time[i] = e.time;
    c.replyTime[i] = e.replyTime;
    c.type[i] = e.type;
    c.status[i] = e.status;
    c.reply[i] = e.reply;
    c.domain[i] = e.domain;
    c.client[i] = e.client;
    c.upstream[i] = e.upstream;
  }

  /** Time of the oldest entry, or null when empty. */
  oldestTime(): number | null {
    return this.size ? this.chunks[0]!.time[this.head]! : null;
  }

  /** Removes the oldest entry and returns it (a reused view). */
  shift(): RingEntry | null {
    if (!this.size) return null;
    const c = this.chunks[0]!,
      i = this.head;
    const v = this.view;
    v.time = c.time[i]!;
    v.replyTime = c.replyTime[i]!;
    v.type = c.type[i]!;
    v.status = c.status[i]!;
    v.reply = c.reply[i]!;
    v.domain = c.domain[i]!;
    v.client = c.client[i]!;
    v.upstream = c.upstream[i]!;
    this.head++;
    const last = this.chunks.length === 1;
    if (this.head === CHUNK || (last && this.head === this.tail)) {
      this.chunks.shift();
      this.head = 0;
      if (last) this.tail = CHUNK;
    }
    return v;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.tail = CHUNK;
  }
}

// Query records in a columnar form for the trips between threads (a DNS thread to the main one, the
// main one to the query writer): numbers in typed arrays that are transferred without copying, the
// strings of each record concatenated into one string with their lengths beside. Cloning
// thousands of small objects costs several times more.
import type { QueryRecord, StoredRecord } from "./record.ts";

export interface RecordBatch {
  count: number;
  /** per record: id, time, replyTime */
  f: Float64Array;
  /** per record: type, status, reply, dnssec, listId (NULL_ID = null; negative ids are Moat's blocked services), ede */
  n: Int32Array;
  /** per record: lengths of domain, client, upstream, cname, answers (-1 = null) */
  len: Int32Array;
  text: string;
}

/** listId null: the one Int32 value no list id takes */
const NULL_ID = -2147483648;

const F = 3,
  N = 6,
  S = 5;

/**
 * A batch built record by record: each record's numbers go into the columns as it comes and its
 * strings into a list, so a queue of records holds no object per record while it waits for its
 * batch, and the caller may reuse its record object (the DNS engine does). Measured at 10k QPS
 * against a queue of record objects: the main heap's young collections and the CPU a query did not
 * move beyond the noise. `take()` hands over what was added.
 */
export class BatchBuilder {
  count = 0;
  private f: Float64Array;
  private n: Int32Array;
  private len: Int32Array;
  private parts: string[] = [];

  constructor(private capacity = 256) {
    this.f = new Float64Array(capacity * F);
    this.n = new Int32Array(capacity * N);
    this.len = new Int32Array(capacity * S);
  }

  add(id: number, r: QueryRecord): void {
    if (this.count === this.capacity) this.grow();
    const i = this.count++;
    const f = this.f,
      n = this.n;
    f[i * F] = id;
    f[i * F + 1] = r.time;
    f[i * F + 2] = r.replyTime;
    const o = i * N;
    n[o] = r.type;
    n[o + 1] = r.status;
    n[o + 2] = r.reply;
    n[o + 3] = r.dnssec;
    n[o + 4] = r.listId ?? NULL_ID;
    n[o + 5] = r.ede;
    this.str(i * S, r.domain);
    this.str(i * S + 1, r.client);
    this.str(i * S + 2, r.upstream);
    this.str(i * S + 3, r.cname);
    this.str(i * S + 4, r.answers);
  }

  /** The batch of every record added since the last take (its own arrays, sized to it). */
  take(): RecordBatch {
    const c = this.count;
    const b = {
      count: c,
      f: this.f.slice(0, c * F),
      n: this.n.slice(0, c * N),
      len: this.len.slice(0, c * S),
      text: this.parts.join(""),
    };
    this.count = 0;
    this.parts = [];
    return b;
  }

  private str(i: number, s: string | null): void {
    if (s === null) this.len[i] = -1;
    else {
      this.len[i] = s.length;
      this.parts.push(s);
    }
  }

  private grow(): void {
    this.capacity *= 2;
    const more = <T extends Float64Array | Int32Array>(a: T, b: T): T => (b.set(a), b);
    this.f = more(this.f, new Float64Array(this.capacity * F));
    this.n = more(this.n, new Int32Array(this.capacity * N));
    this.len = more(this.len, new Int32Array(this.capacity * S));
  }
}

export function encodeBatch(records: readonly StoredRecord[]): RecordBatch {
  const b = new BatchBuilder(Math.max(1, records.length));
  for (const { id, r } of records) b.add(id, r);
  return b.take();
}

export function decodeBatch(b: RecordBatch): StoredRecord[] {
  const out: StoredRecord[] = new Array(b.count);
  const r = new BatchReader(b);
  for (let i = 0; r.next(); i++) {
    const rec: QueryRecord = {
      time: r.time,
      replyTime: r.replyTime,
      type: r.type,
      status: r.status,
      reply: r.reply,
      dnssec: r.dnssec,
      listId: r.listId,
      ede: r.ede,
      domain: r.string(0) ?? "",
      client: r.string(1) ?? "",
      upstream: r.string(2),
      cname: r.string(3),
      answers: r.string(4),
    };
    out[i] = { id: r.id, r: rec };
  }
  return out;
}

/**
 * Walks a batch's records in order without making an object or a string per record: the query
 * writer stores straight from the columns and looks names up where they lie in `text`
 * (src/querylog/name-ids.ts has the figures); decodeBatch() reads through it too, so the columns'
 * layout is written down once. `next()` moves to the following record; the rest read the current one.
 */
export class BatchReader {
  private i = -1;
  /** where in the batch's text each string of the current record begins */
  private readonly starts = new Int32Array(S);
  private end = 0;
  constructor(private readonly b: RecordBatch) {}

  next(): boolean {
    if (++this.i >= this.b.count) return false;
    const len = this.b.len;
    for (let k = 0, o = this.i * S; k < S; k++) {
      this.starts[k] = this.end;
      this.end += Math.max(0, len[o + k]!);
    }
    return true;
  }
  get id(): number {
    return this.b.f[this.i * F]!;
  }
  get time(): number {
    return this.b.f[this.i * F + 1]!;
  }
  get replyTime(): number {
    return this.b.f[this.i * F + 2]!;
  }
  get type(): number {
    return this.b.n[this.i * N]!;
  }
  get status(): number {
    return this.b.n[this.i * N + 1]!;
  }
  get reply(): number {
    return this.b.n[this.i * N + 2]!;
  }
  get dnssec(): number {
    return this.b.n[this.i * N + 3]!;
  }
  get listId(): number | null {
    const v = this.b.n[this.i * N + 4]!;
    return v === NULL_ID ? null : v;
  }
  get ede(): number {
    return this.b.n[this.i * N + 5]!;
  }
  /** Length of the current record's string k (0 domain, 1 client, 2 upstream, 3 cname, 4 answers), -1 for null. */
  length(k: 0 | 1 | 2 | 3 | 4): number {
    return this.b.len[this.i * S + k]!;
  }
  /** Where the current record's string k begins in the batch's text. */
  start(k: 0 | 1 | 2 | 3 | 4): number {
    return this.starts[k]!;
  }
  /** The current record's string k as a string of its own (a slice of the text), null for null. */
  string(k: 0 | 1 | 2 | 3 | 4): string | null {
    const len = this.length(k);
    return len < 0 ? null : this.b.text.slice(this.starts[k]!, this.starts[k]! + len);
  }
}

export function batchTransferables(b: RecordBatch): ArrayBuffer[] {
  return [b.f.buffer as ArrayBuffer, b.n.buffer as ArrayBuffer, b.len.buffer as ArrayBuffer];
}

// The 24 h window's queries in time order, columnar and in fixed-size chunks of typed arrays only:
// names are ids into the window's tables, so a busy day's millions of queries hold no reference the
// collector would have to trace (measured: its pauses were the DNS thread's slowest answers). A chunk
// is dropped whole once every query in it has aged out, so memory follows the window without
// copying or slack. The ring is also the 24 h query log: /api/queries reads these columns
// (log-page.ts), so each query is kept once, 20-29 bytes, instead of here and again in SQLite.
import { IntColumn } from "./int-column.ts";

const CHUNK = 16384;
/** listId's column value for "no list" (list ids are positive) */
const NO_LIST = -2147483648;
/** idOff's value for id 0 (a query only counted) */
const NO_ID = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Bytes one query takes in the ring's columns on a busy network: the id and the time as 32-bit
 * offsets from the chunk's first (a day spans ~86M milliseconds), the reply time, status and reply
 * type, the domain's id past 16 bits, and the rest narrow (IntColumn: the type, list and client in
 * 16 bits, the upstream and EDE in 8, the DNSSEC state and the CNAME nothing while all alike in a
 * chunk, the answer records' id in 16). 49 bytes when every column was 32 or 64 bits. A chunk that meets a value its columns
 * cannot hold exactly (a history imported with times finer than a millisecond, a clock that jumped
 * by weeks, a type past 32,767) keeps that column wider from then on, so nothing is ever rounded.
 * What the memory budget estimates with; `RecordRing.bytes()` counts what the chunks hold.
 */
export const BYTES_PER_ENTRY = 4 + 4 + 4 + 1 + 1 + 2 + 1 + 2 + 4 + 2 + 1 + 0 + 0 + 2;

/** A narrow column a chunk no longer reads, once it has the wide one. */
const DROPPED = new Int32Array(0);

/** One chunk's columns, read in place by the query-log scan (the id and time through their accessors). */
export class Chunk {
  /** id - idBase, or NO_ID */
  private idOff = new Int32Array(CHUNK);
  /** milliseconds since timeBase */
  private timeMs = new Int32Array(CHUNK);
  private idBase = 0;
  private timeBase = Number.NaN;
  /** the full-width columns, made only for a chunk that needs one */
  private idWide: Float64Array | null = null;
  private timeWide: Float64Array | null = null;
  readonly replyTime = new Float32Array(CHUNK);
  readonly status = new Uint8Array(CHUNK);
  readonly reply = new Uint8Array(CHUNK);
  /** the database's query type (-1 stands for nothing: every type is positive) */
  readonly type = new IntColumn(CHUNK, 16, -1);
  readonly dnssec = new IntColumn(CHUNK, 8, -1);
  readonly ede = new IntColumn(CHUNK, 8, -1);
  readonly listId = new IntColumn(CHUNK, 16, NO_LIST);
  /** ids in the window's tables, -1 for none */
  readonly domain = new IntColumn(CHUNK, 16, -1);
  readonly client = new IntColumn(CHUNK, 16, -1);
  readonly upstream = new IntColumn(CHUNK, 8, -1);
  readonly cname = new IntColumn(CHUNK, 16, -1);
  /** the answer records' text, an id in the window's table of distinct answers */
  readonly answers = new IntColumn(CHUNK, 16, -1);

  /** the query's id; 0 for a query only counted */
  idAt(i: number): number {
    if (this.idWide) return this.idWide[i]!;
    const off = this.idOff[i]!;
    return off === NO_ID ? 0 : this.idBase + off;
  }

  /** unix time in seconds, exactly as pushed */
  timeAt(i: number): number {
    return this.timeWide ? this.timeWide[i]! : (this.timeBase + this.timeMs[i]!) / 1000;
  }

  setId(i: number, id: number): void {
    if (this.idWide) {
      this.idWide[i] = id;
      return;
    }
    if (id === 0) {
      this.idOff[i] = NO_ID;
      return;
    }
    if (this.idBase === 0) this.idBase = id;
    const off = id - this.idBase;
    if (Number.isInteger(off) && off > NO_ID && off <= INT32_MAX) this.idOff[i] = off;
    else {
      this.idWide = Chunk.widen(i, (k) => this.idAt(k));
      this.idWide[i] = id;
      this.idOff = DROPPED;
    }
  }

  setTime(i: number, time: number): void {
    if (this.timeWide) {
      this.timeWide[i] = time;
      return;
    }
    // exact only when dividing the whole milliseconds by 1000 gives the very same number back
    const ms = Math.round(time * 1000);
    if (Number.isNaN(this.timeBase)) this.timeBase = ms;
    const off = ms - this.timeBase;
    if (ms / 1000 === time && off >= -INT32_MAX && off <= INT32_MAX) this.timeMs[i] = off;
    else {
      this.timeWide = Chunk.widen(i, (k) => this.timeAt(k));
      this.timeWide[i] = time;
      this.timeMs = DROPPED;
    }
  }

  /** Bytes a query's id and time take in this chunk (what a test checks stays narrow). */
  widths(): { id: number; time: number } {
    return { id: this.idWide ? 8 : 4, time: this.timeWide ? 8 : 4 };
  }

  /** Bytes this chunk's columns hold. */
  bytes(): number {
    const fixed = (this.idWide ? 8 : 4) + (this.timeWide ? 8 : 4) + 4 + 1 + 1;
    let n = fixed * CHUNK;
    for (const c of [
      this.type,
      this.dnssec,
      this.ede,
      this.listId,
      this.domain,
      this.client,
      this.upstream,
      this.cname,
      this.answers,
    ])
      n += c.bytes();
    return n;
  }

  /** A full-width copy of the first `n` values of a narrow column. */
  private static widen(n: number, at: (k: number) => number): Float64Array {
    const wide = new Float64Array(CHUNK);
    for (let k = 0; k < n; k++) wide[k] = at(k);
    return wide;
  }
}

/** One query as the ring gives it back (a reused view: read it before the next call). */
export interface RingEntry {
  /** the query's id (the long-term database's too); 0 for a query only counted (privacy level 3) */
  id: number;
  time: number;
  replyTime: number;
  type: number;
  status: number;
  reply: number;
  dnssec: number;
  ede: number;
  listId: number | null;
  /** ids in the window's tables, -1 for none */
  domain: number;
  client: number;
  upstream: number;
  cname: number;
  answers: number;
}

export function emptyEntry(): RingEntry {
  return {
    id: 0,
    time: 0,
    replyTime: 0,
    type: 0,
    status: 0,
    reply: 0,
    dnssec: 0,
    ede: -1,
    listId: null,
    domain: -1,
    client: -1,
    upstream: -1,
    cname: -1,
    answers: -1,
  };
}

/** The list id of entry `i` of chunk `c` (null: none). */
export function listIdAt(c: Chunk, i: number): number | null {
  const list = c.listId.get(i);
  return list === NO_LIST ? null : list;
}

/** Where a stepped scan (RecordRing.scanStep) goes on: entry `i` of `chunk`; null before the first step. */
export interface ScanMark {
  chunk: Chunk | null;
  i: number;
}

export class RecordRing {
  private chunks: Chunk[] = [];
  /** index of the oldest entry in chunks[0] */
  private head = 0;
  /** entries used in the last chunk */
  private tail = CHUNK;
  private readonly view = emptyEntry();

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
    c.setId(i, e.id);
    c.setTime(i, e.time);
    c.replyTime[i] = e.replyTime;
    c.type.set(i, e.type);
    c.status[i] = e.status;
    c.reply[i] = e.reply;
    c.dnssec.set(i, e.dnssec);
    c.ede.set(i, e.ede);
    c.listId.set(i, e.listId ?? NO_LIST);
    c.domain.set(i, e.domain);
    c.client.set(i, e.client);
    c.upstream.set(i, e.upstream);
    c.cname.set(i, e.cname);
    c.answers.set(i, e.answers);
  }

  /** Time of the oldest entry, or null when empty. */
  oldestTime(): number | null {
    return this.size ? this.chunks[0]!.timeAt(this.head) : null;
  }

  /** Removes the oldest entry and returns it (a reused view). */
  shift(): RingEntry | null {
    if (!this.size) return null;
    const v = RecordRing.read(this.chunks[0]!, this.head, this.view);
    this.head++;
    const last = this.chunks.length === 1;
    if (this.head === CHUNK || (last && this.head === this.tail)) {
      this.chunks.shift();
      this.head = 0;
      if (last) this.tail = CHUNK;
    }
    return v;
  }

  /** Copies entry `i` of chunk `c` into `v` (the query-log scan's rows). */
  static read(c: Chunk, i: number, v: RingEntry): RingEntry {
    v.id = c.idAt(i);
    v.time = c.timeAt(i);
    v.replyTime = c.replyTime[i]!;
    v.type = c.type.get(i);
    v.status = c.status[i]!;
    v.reply = c.reply[i]!;
    v.dnssec = c.dnssec.get(i);
    v.ede = c.ede.get(i);
    v.listId = listIdAt(c, i);
    v.domain = c.domain.get(i);
    v.client = c.client.get(i);
    v.upstream = c.upstream.get(i);
    v.cname = c.cname.get(i);
    v.answers = c.answers.get(i);
    return v;
  }

  /**
   * Calls `fn` with every entry's chunk and index, newest first, until it returns false. The columns
   * are read in place: a scan of the whole day allocates nothing.
   */
  scanNewest(fn: (c: Chunk, i: number) => boolean): void {
    for (let k = this.chunks.length - 1; k >= 0; k--) {
      const c = this.chunks[k]!;
      const end = k === this.chunks.length - 1 ? this.tail : CHUNK;
      const start = k === 0 ? this.head : 0;
      for (let i = end - 1; i >= start; i--) if (!fn(c, i)) return;
    }
  }

  /**
   * scanNewest in steps: from `mark` (the newest entry while `mark.chunk` is null), at most `step`
   * entries, then the place reached is kept in `mark`. "stopped": `fn` returned false; "end": the
   * oldest entry was passed. Entries pushed between steps are newer than the mark and not visited;
   * entries shifted out between steps are not visited either.
   */
  scanStep(mark: ScanMark, step: number, fn: (c: Chunk, i: number) => boolean): "more" | "stopped" | "end" {
    const last = this.chunks.length - 1;
    let k = mark.chunk ? this.chunks.indexOf(mark.chunk) : last;
    // the marked chunk aged out whole: so did every older one
    if (k < 0) return "end";
    let i = mark.chunk ? mark.i : (k === last ? this.tail : CHUNK) - 1;
    for (; k >= 0; k--, i = CHUNK - 1) {
      const c = this.chunks[k]!;
      const start = k === 0 ? this.head : 0;
      for (; i >= start; i--) {
        if (step-- <= 0) {
          mark.chunk = c;
          mark.i = i;
          return "more";
        }
        if (!fn(c, i)) return "stopped";
      }
    }
    return "end";
  }

  /**
   * Bytes the entries take: each chunk's bytes a query times its entries in the ring (a chunk is
   * freed whole once its last entry goes, so this is what shedding entries gives back).
   */
  bytes(): number {
    let n = 0;
    const last = this.chunks.length - 1;
    this.chunks.forEach((c, k) => {
      const entries = (k === last ? this.tail : CHUNK) - (k === 0 ? this.head : 0);
      n += (c.bytes() / CHUNK) * entries;
    });
    return n;
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.tail = CHUNK;
  }
}

import { expect, test } from "bun:test";
import { type Chunk, emptyEntry, RecordRing, type ScanMark } from "./ring.ts";

const entry = (i: number) => ({
  id: 1000 + i,
  time: i,
  replyTime: i / 4,
  type: 100 + (i % 60000),
  status: i % 19,
  reply: i % 14,
  dnssec: i % 5,
  ede: (i % 26) - 1,
  listId: i % 3 ? null : i,
  domain: i,
  client: i % 3,
  upstream: i % 2 ? -1 : 5,
  cname: i % 4 ? -1 : i,
  answers: -1,
});

test("ring: entries come back oldest first, across chunk boundaries, with every field", () => {
  const r = new RecordRing();
  const n = 40_000; // more than two chunks
  for (let i = 0; i < n; i++) r.push(entry(i));
  expect(r.size).toBe(n);
  for (let i = 0; i < n; i++) {
    expect(r.oldestTime()).toBe(i);
    const e = r.shift()!;
    expect({ ...e }).toEqual(entry(i));
  }
  expect(r.size).toBe(0);
  expect(r.shift()).toBeNull();
  expect(r.oldestTime()).toBeNull();
  // usable again after running empty, and after clear
  r.push(entry(7));
  expect(r.shift()!.domain).toBe(7);
  for (let i = 0; i < 20_000; i++) r.push(entry(i));
  r.clear();
  expect(r.size).toBe(0);
  r.push(entry(9));
  expect(r.size).toBe(1);
});

test("ring: scanNewest walks newest first across chunks, stops when told, and skips what aged out", () => {
  const r = new RecordRing();
  for (let i = 0; i < 40_000; i++) r.push(entry(i));
  for (let i = 0; i < 20_000; i++) r.shift();
  const seen: number[] = [];
  const v = emptyEntry();
  r.scanNewest((c, i) => {
    seen.push(RecordRing.read(c, i, v).id);
    return true;
  });
  expect(seen.length).toBe(20_000);
  expect(seen[0]).toBe(1000 + 39_999);
  expect(seen.at(-1)).toBe(1000 + 20_000);
  expect(seen.every((id, k) => k === 0 || id === seen[k - 1]! - 1)).toBe(true);
  let n = 0;
  r.scanNewest(() => ++n < 5);
  expect(n).toBe(5);
});

test("ring: the narrow columns give back every id, time and type exactly, widening a chunk that needs it", () => {
  const ms = 1_764_380_000_123;
  const now = ms / 1000;
  type Widths = ReturnType<Chunk["widths"]>;
  const narrow: Widths = { id: 4, time: 4 };
  // the widths of the first chunk and of the second (narrow unless every query needs the width)
  const cases: Array<[string, (i: number) => Partial<ReturnType<typeof entry>>, Widths, Widths?]> = [
    // what Date.now() / 1000 gives, 24 h apart at most
    [
      "milliseconds, ids in order, a few counted only",
      (i) => ({ time: (ms + i * 4321) / 1000, id: i % 7 ? 5e9 + i : 0 }),
      narrow,
    ],
    [
      "times finer than a millisecond (an imported history)",
      (i) => ({ time: now + i * 1.234567e-4 }),
      { ...narrow, time: 8 },
      { ...narrow, time: 8 },
    ],
    [
      "a clock that jumps by weeks mid-chunk",
      (i) => ({ time: i < 100 ? 86_400 + i : now + i }),
      { ...narrow, time: 8 },
    ],
    ["ids past 2^31 apart", (i) => ({ id: i === 50 ? 2 ** 40 : 1 + i }), { ...narrow, id: 8 }],
    ["ids going back", (i) => ({ id: 1e6 - i * 3 }), narrow],
    ["types past 15 bits (100 + a wire type)", (i) => ({ type: i === 300 ? 65_635 : 100 + (i % 65_536) }), narrow],
  ];
  for (const [what, patch, widths, second = narrow] of cases) {
    const r = new RecordRing();
    const want = (i: number) => ({ ...entry(i), ...patch(i) });
    const n = 20_000; // the second chunk starts narrow again
    for (let i = 0; i < n; i++) r.push(want(i));
    const v = emptyEntry();
    const seen: Array<ReturnType<typeof entry>> = [];
    const chunks: Widths[] = [];
    r.scanNewest((c, i) => {
      if (i === 0) chunks.unshift(c.widths());
      seen.push({ ...RecordRing.read(c, i, v) } as ReturnType<typeof entry>);
      return true;
    });
    seen.reverse();
    expect({ what, n: seen.length, chunks }).toEqual({ what, n, chunks: [widths, second] });
    for (let i = 0; i < n; i++)
      if (!Bun.deepEquals(seen[i], want(i))) expect({ what, i, got: seen[i] }).toEqual({ what, i, got: want(i) });
    for (let i = 0; i < n; i++) expect(r.shift()!.time).toBe(want(i).time);
  }
});

test("ring: scanStep goes on where it stopped; what arrives meanwhile is not visited, what aged out ends it", () => {
  const r = new RecordRing();
  for (let i = 0; i < 50_000; i++) r.push(entry(i));
  for (let i = 0; i < 10_000; i++) r.shift();
  const v = emptyEntry();
  const idsOf = (steps: number, between: (k: number) => void) => {
    const seen: number[] = [];
    const mark: ScanMark = { chunk: null, i: 0 };
    let state: ReturnType<RecordRing["scanStep"]>;
    let k = 0;
    do {
      state = r.scanStep(mark, steps, (c, i) => (seen.push(RecordRing.read(c, i, v).id), true));
      between(k++);
    } while (state === "more");
    return { seen, state };
  };
  // steps that end on and across chunk boundaries (16,384 entries a chunk) see what one scan sees
  for (const steps of [1000, 16_384, 40_000]) {
    const { seen, state } = idsOf(steps, () => {});
    expect(state).toBe("end");
    expect(seen.length).toBe(40_000);
    expect(seen.every((id, k) => id === 1000 + 49_999 - k)).toBe(true);
  }
  // entries pushed between steps are newer than the scan's place: not visited
  let next = 50_000;
  const grown = idsOf(5000, () => {
    for (let j = 0; j < 3000; j++) r.push(entry(next++));
  });
  expect(grown.seen.length).toBe(40_000);
  expect(grown.seen[0]).toBe(1000 + 49_999);
  // entries shifted out between steps are not visited, and the scan ends where they went
  let floor = 0;
  const below: number[] = [];
  const mark: ScanMark = { chunk: null, i: 0 };
  let state: ReturnType<RecordRing["scanStep"]>;
  let visited = 0;
  do {
    state = r.scanStep(mark, 5000, (c, i) => {
      const id = RecordRing.read(c, i, v).id;
      if (id < floor) below.push(id);
      visited++;
      return true;
    });
    for (let j = 0; j < 12_000 && r.size; j++) floor = r.shift()!.id + 1;
  } while (state === "more");
  expect(state).toBe("end");
  expect(below).toEqual([]);
  expect(visited).toBeGreaterThan(5000);
  expect(visited).toBeLessThan(next - 10_000);
  // told to stop: stopped, and the empty ring ends at once
  r.push(entry(next++));
  expect(r.scanStep({ chunk: null, i: 0 }, 10, () => false)).toBe("stopped");
  expect(new RecordRing().scanStep({ chunk: null, i: 0 }, 10, () => true)).toBe("end");
});

test("ring: a chunk's columns take what their values need (a quiet home: 23 bytes a query; a busy network: 29)", () => {
  const chunkOf = (at: (i: number) => Partial<ReturnType<typeof entry>>) => {
    const r = new RecordRing();
    for (let i = 0; i < 16_384; i++)
      r.push({
        ...entry(i),
        dnssec: 0,
        ede: -1,
        cname: -1,
        listId: null,
        upstream: 0,
        ...at(i),
        time: (1e12 + i) / 1000,
      });
    let chunk: Chunk | undefined;
    r.scanNewest((c) => ((chunk = c), false));
    return Object.assign(chunk!, { ring: r });
  };
  // 50 domains, 3 clients, A and AAAA, some cached, some blocked: id, time, reply time 12, status and
  // reply 2, type, list, domain, client 2 each, upstream 1; EDE, DNSSEC and CNAME nothing
  const quiet = chunkOf((i) => ({
    domain: i % 50,
    client: i % 3,
    type: i % 10 ? 1 : 28,
    upstream: i % 3 ? 0 : -1,
    listId: i % 20 ? null : 2,
  }));
  expect(quiet.bytes()).toBe(16_384 * 23);
  // the ring counts its entries' share: what shedding them gives back once the chunk goes
  expect(quiet.ring.bytes()).toBe(16_384 * 23);
  for (let i = 0; i < 4096; i++) quiet.ring.shift();
  expect(quiet.ring.bytes()).toBe(12_288 * 23);
  // 300k domains, some blocked with a list and an EDE, DNSSEC states, one CNAME: the domain takes 4, EDE and DNSSEC 1, the CNAME 2
  const busy = chunkOf((i) => ({
    domain: 300_000 - i,
    client: i % 40,
    type: i % 10 ? 1 : 28,
    upstream: i % 3 ? 0 : -1,
    listId: i % 5 ? null : 3,
    ede: i % 5 ? -1 : 15,
    dnssec: i % 7,
    cname: i === 9 ? 77 : -1,
  }));
  expect(busy.bytes()).toBe(16_384 * (4 + 4 + 4 + 1 + 1 + 2 + 1 + 1 + 2 + 4 + 2 + 1 + 2));
});

import { expect, test } from "bun:test";
import { countLoopTurns } from "./loop-turns.ts";
import { Reply, Status, dbQueryType } from "../query/enums.ts";
import type { QueryRecord } from "../query/record.ts";
import { QueryWindow } from "./window.ts";

const rec = (time: number, domain: string, status: number = Status.FORWARDED): QueryRecord => ({
  time,
  type: dbQueryType(1),
  domain,
  client: "10.0.0.1",
  status,
  reply: Reply.IP,
  replyTime: 1,
  upstream: status === Status.FORWARDED ? "127.0.0.1#53" : null,
  dnssec: 0,
  listId: null,
  ede: -1,
  cname: null,
  answers: null,
});

test("window: history loaded behind live queries ages out first, and the live ones stay until their time", () => {
  let now = 100_000;
  const w = new QueryWindow(
    () => now,
    () => 1000,
  );
  // live queries first (DNS answers from the start), then the history arrives (older than all of them)
  w.add(rec(100_000, "live.example", Status.GRAVITY));
  for (let t = 99_001; t <= 99_801; t += 100) w.addOlder(rec(t, `old${t}.example`, Status.GRAVITY), t);
  expect(w.size).toBe(10);
  expect(w.blocked).toBe(10);
  // newest first: the live query, then the history from its newest end
  expect(w.recentBlockedDomains(3)).toEqual(["live.example", "old99801.example", "old99701.example"]);

  now = 100_500; // the cutoff is 99_500: the 5 oldest go, the live one stays
  w.expire();
  expect(w.size).toBe(5);
  expect(w.domains.size).toBe(5);

  now = 100_950; // all of the history is older than 99_950
  w.expire();
  expect(w.size).toBe(1);
  expect(w.total).toBe(1);
  expect(w.blocked).toBe(1);

  now = 101_001;
  w.expire();
  expect(w.size).toBe(0);
  expect(w.total).toBe(0);
});

test("window: clear() forgets the history and the live queries alike", () => {
  const w = new QueryWindow(() => 1000);
  w.add(rec(1000, "a.example"));
  w.addOlder(rec(900, "b.example"), 1);
  w.clear();
  expect([w.size, w.total, w.forwarded]).toEqual([0, 0, 0]);
});

test("window: a scan in slices visits the live queries then the history, newest first, with the event loop free between", async () => {
  const now = 200_000;
  const w = new QueryWindow(
    () => now,
    () => 86_400,
  );
  for (let k = 0; k < 60_000; k++) w.add(rec(now - 1, `live${k}.example`), 100_000 + k);
  for (let k = 0; k < 40_000; k++) w.addOlder(rec(now - 2, `old${k}.example`), 1 + k);
  const sync: number[] = [];
  w.scanNewest((c, i) => (sync.push(c.idAt(i)), true));
  const loop = countLoopTurns();
  const sliced: number[] = [];
  await w.scanNewestInSlices((c, i) => {
    sliced.push(c.idAt(i));
    // ~2 µs an entry: a slice of 1 ms cannot hold the whole scan
    const until = performance.now() + 0.002;
    while (performance.now() < until);
    return true;
  }, 1);
  const turns = loop.stop();
  expect(sliced).toEqual(sync);
  expect(sliced.length).toBe(100_000);
  expect(turns).toBeGreaterThan(10);
  // stopped in the live queries: the history is not visited
  let n = 0;
  await w.scanNewestInSlices(() => ++n < 10, 1);
  expect(n).toBe(10);
});

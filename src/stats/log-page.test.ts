// A page of the 24 h log is read in slices (log-page.ts): what happens between them must not change
// what the page says about the queries that were there when it was asked.
import { expect, test } from "bun:test";
import { Reply, Status, dbQueryType } from "../query/enums.ts";
import type { QueryRecord } from "../query/record.ts";
import { windowPage } from "./log-page.ts";
import { QueryWindow } from "./window.ts";

const rec = (time: number, domain: string): QueryRecord => ({
  time,
  type: dbQueryType(1),
  domain,
  client: "10.0.0.1",
  status: Status.FORWARDED,
  reply: Reply.IP,
  replyTime: 1,
  upstream: "127.0.0.1#53",
  dnssec: 0,
  listId: null,
  ede: -1,
  cname: null,
  answers: null,
});

test("windowPage: a name that takes a matching name's id while the page is read is not taken for a match", async () => {
  let now = 100_000;
  const w = new QueryWindow(
    () => now,
    () => 1000,
  );
  let id = 1;
  // the first name (the first id) matches; it ages out while the page is read
  w.add(rec(99_100, "old-match.example"), id++);
  // enough names that the pattern's pass over them pauses at least once
  for (let k = 0; k < 200_000; k++) w.add(rec(99_900, `n${k}.bulk.test`), id++);
  w.add(rec(99_950, "new-match.example"), id++);
  const page = windowPage(w, { domain: "*match*", length: 100 });
  let reused = false;
  const meanwhile = async () => {
    await new Promise((r) => setImmediate(r));
    now = 100_200; // old-match.example ages out, its id is free
    w.expire();
    w.add(rec(100_200, "fresh.example"), id++); // takes the freed id
    reused = w.names.domain(0) === "fresh.example" || w.names.domain(1) === "fresh.example";
  };
  const [p] = await Promise.all([page, meanwhile()]);
  // the test means something only if the id went to the new name while the page was read
  expect(reused).toBe(true);
  expect(p.queries.map((q) => q.domain)).not.toContain("fresh.example");
  expect(p.queries.map((q) => q.domain)).toContain("new-match.example");
  expect(p.recordsFiltered).toBeLessThanOrEqual(2);
});

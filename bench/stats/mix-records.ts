// The realistic mix's queries as query records, for the benches that fill a QueryWindow without a
// server (window-memory.ts, shed.ts): the mix of bench/mix/data.ts at its defaults (308k distinct
// names in 1M lines), five statuses in turn, 20 clients, spread over the day before `end`.
import { readFileSync } from "node:fs";
import { Reply, Status, dbQueryType } from "../../src/query/enums.ts";
import type { QueryRecord } from "../../src/query/record.ts";
import { makeMix } from "../mix/data.ts";

/** Writes the mix into `dir` (its query file: `.queryFile`). */
export function benchMix(dir: string): ReturnType<typeof makeMix> {
  return makeMix(dir, { list: 1_000_000, queries: 1_000_000, popular: 100_000, hostsPool: 150_000, abpPool: 60_000 });
}

export interface MixRecords {
  /** the i-th record (times past the n-th stay at the last one's) */
  record(i: number): QueryRecord;
  /** unix seconds of the n-th record: the window's "now" */
  end: number;
  /** what the records are made of (a bench keeps it reachable so every run holds the same) */
  data: unknown;
}

/** `n` records of the mix in `queryFile`, the last just under a day after the first. */
export function mixRecords(queryFile: string, n: number): MixRecords {
  const lines = readFileSync(queryFile, "utf8").trimEnd().split("\n");
  // strings of their own, as the DNS engine makes them: a slice stays a view of its line until
  // first read, then gets its own copy (25 MiB for these names), which would count as the window's
  const names = lines.map((l) => l.slice(0, l.indexOf(" ")).split("").join(""));
  const types = lines.map((l) => dbQueryType(l.endsWith("AAAA") ? 28 : 1));
  const clients = Array.from({ length: 20 }, (_, i) => `192.168.1.${10 + i}`);
  const statuses = [Status.FORWARDED, Status.CACHE, Status.GRAVITY, Status.CACHE, Status.FORWARDED];
  const startMs = Date.now() - 86_000_000;
  const stepMs = Math.max(1, Math.floor(86_000_000 / n));
  return {
    end: (startMs + n * stepMs) / 1000,
    data: [lines, names, types],
    record(i) {
      const k = i % lines.length;
      const status = statuses[i % statuses.length]!;
      return {
        time: (startMs + Math.min(i, n) * stepMs) / 1000,
        type: types[k]!,
        domain: names[k]!,
        client: clients[(i * 7) % clients.length]!,
        status,
        reply: Reply.IP,
        replyTime: status === Status.FORWARDED ? 2 + (i % 50) / 7 : 0.05,
        upstream: status === Status.FORWARDED ? "127.0.0.1#53" : null,
        dnssec: 0,
        listId: status === Status.GRAVITY ? 1 + (i % 3) : null,
        ede: -1,
        cname: null,
        answers: null,
      };
    },
  };
}

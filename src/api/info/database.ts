// GET /api/info/database: the long-term query database's file and the queries it and the 24 h log hold.
import { t } from "elysia";
import { queryReads } from "../core/query-reads.ts";
import type { ApiDeps } from "../deps.ts";
import { fileInfo } from "../../host/system.ts";
import { liveStats } from "../stats/params.ts";

const Int = t.Integer();

const DatabaseReply = t.Object({
  size: Int,
  type: t.String(),
  mode: t.String(),
  atime: Int,
  mtime: Int,
  ctime: Int,
  owner: t.Object({
    user: t.Object({ uid: Int, name: t.String(), info: t.String() }),
    group: t.Object({ gid: Int, name: t.String() }),
  }),
  queries: Int,
  earliest_timestamp: t.Number(),
  queries_disk: Int,
  earliest_timestamp_disk: t.Number(),
  sqlite_version: t.String(),
});

export function databaseInfoRoutes(rt: ApiDeps) {
  return queryReads(rt, "info-database").get(
    "/info/database",
    async () => {
      const s = liveStats(rt);
      const f = fileInfo(rt.paths.queryDb);
      const mem = s.logStored();
      // a count of every stored query: on a thread of its own, as it reads the whole table
      const disk = await s.longTerm.read("storedQueries");
      const version = s.sqliteVersion();
      // a file that cannot be stat'ed (not yet written) reads as empty, owned by this process
      const uid = process.getuid?.() ?? 0;
      const gid = process.getgid?.() ?? 0;
      const user = f?.owner.user ?? { uid, name: null, info: null };
      const group = f?.owner.group ?? { gid, name: null };
      return {
        size: f?.size ?? 0,
        type: f?.type ?? "file",
        mode: f?.mode ?? "0000",
        atime: f?.atime ?? 0,
        mtime: f?.mtime ?? 0,
        ctime: f?.ctime ?? 0,
        owner: {
          user: { uid: user.uid, name: user.name ?? String(user.uid), info: user.info ?? "" },
          group: { gid: group.gid, name: group.name ?? String(group.gid) },
        },
        queries: mem.count,
        earliest_timestamp: mem.earliest,
        queries_disk: disk.count,
        earliest_timestamp_disk: disk.earliest,
        sqlite_version: version,
      };
    },
    { response: DatabaseReply, detail: { tags: ["Info"], summary: "The long-term query database" } },
  );
}

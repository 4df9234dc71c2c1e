// /api/logs/{dnsmasq,ftl,webserver}: the in-memory FIFOs of Moat's logs, tailed with nextID.
import { Elysia, t } from "elysia";
import type { LogName } from "../../core/log.ts";
import type { Context } from "../../core/runtime.ts";
import { intParam } from "../stats/params.ts";

const Reply = t.Object({
  log: t.Array(t.Object({ timestamp: t.Number(), message: t.String(), prio: t.Union([t.String(), t.Null()]) })),
  nextID: t.Integer(),
  pid: t.Integer(),
  file: t.String({ description: "Pi-hole's log file; empty: Moat keeps its logs in memory (and on standard error)" }),
});

export function logsRoutes(rt: Context) {
  const route =
    (name: LogName) =>
    ({ query }: { query: { nextID?: string } }) => {
      const { lines, nextID } = rt.logs.buffers[name].since(Math.max(0, intParam(query.nextID, 0)));
      return {
        log: lines.map((l) => ({ timestamp: l.timestamp, message: l.message, prio: l.prio })),
        nextID,
        pid: process.pid,
        file: "",
      };
    };
  const opts = (what: string) => ({
    query: t.Object({
      nextID: t.Optional(t.String({ description: "first line id to return (from the previous reply)" })),
    }),
    response: Reply,
    detail: { tags: ["Logs"], summary: `The ${what} log (last 515 lines)` },
  });
  return new Elysia({ name: "logs" })
    .get("/logs/dnsmasq", route("dnsmasq"), opts("DNS"))
    .get("/logs/ftl", route("ftl"), opts("Moat"))
    .get("/logs/webserver", route("webserver"), opts("web server"));
}

// /api/action/restartdns and the flush actions, gated by
// webserver.api.allow_destructive. POST /api/action/gravity lives with the lists (action/gravity.ts).
import { documented } from "../docs/meta.ts";
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { ApiError, Errors } from "../core/errors.ts";

const Success = t.Object({ status: t.Literal("success") });

/** Pi-hole's gate for the actions that interrupt or forget (restartdns, the flushes; Moat's reboot too). */
export function allowDestructive(rt: Pick<ApiDeps, "config">, message: string): void {
  if (!rt.config.current.webserver.api.allow_destructive)
    throw Errors.forbidden(message, "Check setting webserver.api.allow_destructive");
}

export function actionRoutes(rt: ApiDeps) {
  return new Elysia({ name: "action" })
    .post(
      "/action/restartdns",
      async () => {
        allowDestructive(rt, "Restarting DNS is not allowed");
        rt.log("info", "restartdns: reloading lists and DNS service");
        await rt.dns.flushCache();
        await rt.filter.rebuild();
        rt.events.emit("dns-restarted", { origin: "api" });
        return { status: "success" as const };
      },
      {
        response: Success,
        detail: documented(
          { tags: ["Actions"], summary: "Reload the lists and restart the DNS service (the API stays up)" },
          { responses: { 200: "Done", 403: "Refused while webserver.api.allow_destructive is false" } },
        ),
      },
    )
    .post(
      "/action/flush/logs",
      async () => {
        allowDestructive(rt, "Flushing the logs is not allowed");
        try {
          // Pi-hole's flush drops the last 24 hours of queries from memory and the database; a
          // day's rows take seconds to delete, on the long-term reader thread, not this one (it answers DNS)
          await rt.stats.longTerm.read("deleteQueriesSince", Math.floor(Date.now() / 1000) - 86400);
          rt.stats.flushQueries();
        } catch (e) {
          throw new ApiError(500, "server_error", "Cannot flush the logs", (e as Error).message);
        }
        rt.log("info", "flush/logs: queries of the last 24 hours removed");
        return { status: "success" as const };
      },
      {
        response: Success,
        detail: documented(
          { tags: ["Actions"], summary: "Forget the queries of the last 24 hours" },
          { responses: { 200: "Done", 403: "Refused while webserver.api.allow_destructive is false" } },
        ),
      },
    )
    .post("/action/flush/network", () => flushNetwork(rt), {
      response: Success,
      detail: documented(
        { tags: ["Actions"], summary: "Empty the network table (devices and their addresses)" },
        { responses: { 200: "Done", 403: "Refused while webserver.api.allow_destructive is false" } },
      ),
    })
    .post("/action/flush/arp", () => flushNetwork(rt), {
      response: Success,
      detail: documented(
        { tags: ["Actions"], summary: "Same as flush/network (Pi-hole's alias)" },
        { responses: { 200: "Done", 403: "Refused while webserver.api.allow_destructive is false" } },
      ),
    });
}

function flushNetwork(rt: Pick<ApiDeps, "config" | "network" | "log">): { status: "success" } {
  allowDestructive(rt, "Flushing the network tables is not allowed");
  try {
    rt.network.forgetAllDevices();
  } catch (e) {
    throw new ApiError(500, "server_error", "Cannot flush the network tables", (e as Error).message);
  }
  rt.log("info", "flush/network: network table emptied");
  return { status: "success" };
}
